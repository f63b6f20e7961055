"""Which mutated models MuJoCo and mjgym each accept: a comparison over the fuzzer's corpus (not a test).

  python tests/fuzz_acceptance.py [N] [--seed S] [--log cases.jsonl]

Generates N mutated models (tests/fuzz_corpus.py; 1 to 3 mutations each, fixed seed), loads each in the
`mujoco` package and in mjgym (each in a child process with a timeout), and prints how many both accept,
both reject, only MuJoCo accepts, only mjgym accepts, and the cases where either crashed or hung; then the
disagreements grouped by mutation and by the accepting side's counterpart's error message. ``--log`` writes
every case (mutations, both results) as JSON lines.
"""

import argparse
import collections
import json
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz_corpus  # noqa: E402  pylint: disable=wrong-import-position
import fuzz_worker  # noqa: E402  pylint: disable=wrong-import-position


def _shape(text):
  """A message or mutation with names and numbers blanked, to group similar cases."""
  text = re.sub(r"^.*?:\d+: ", "", text)
  text = re.sub(r"'[^']*'", "'_'", text)
  text = re.sub(r'"[^"]*"', '"_"', text)
  text = re.sub(r"-?\d+(\.\d+)?(e[+-]?\d+)?", "#", text)
  return text[:110]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("n", nargs="?", type=int, default=3000)
  parser.add_argument("--seed", type=int, default=21)
  parser.add_argument("--log", default=None)
  parser.add_argument("--timeout", type=float, default=30.0)
  parser.add_argument("--steps", type=int, default=0, help="also step what mjgym loads, and list mj_step crashes")
  args = parser.parse_args()
  rand = random.Random(args.seed)
  seeds = fuzz_corpus.seed_models()
  mirrors = fuzz_corpus.Mirrors()
  workers = {e: fuzz_worker.Worker(e, warmup=fuzz_corpus.WARMUP) for e in ("mujoco", "mjgym")}
  counts = collections.Counter()
  classes = collections.Counter()
  examples = {}
  stepped = collections.defaultdict(list)
  log = open(args.log, "w", encoding="utf-8") if args.log else None  # pylint: disable=consider-using-with
  t0 = time.perf_counter()
  try:
    for i in range(args.n):
      seed = seeds[rand.randrange(len(seeds))]
      text, done = fuzz_corpus.mutated_text(seed, rand, 1 + rand.randrange(3))
      path = mirrors.write(seed, text)
      res = {e: w.run(path, steps=args.steps if e == "mjgym" else 0, timeout=args.timeout)
             for e, w in workers.items()}
      theirs, ours = res["mujoco"]["status"], res["mjgym"]["status"]
      if ours in ("step_crash", "nonfinite"):
        stepped[(ours, res["mjgym"].get("error", ""), res["mjgym"].get("where", ""))].append((seed.name, done))
        ours = "ok"  # it loaded
      if theirs not in ("ok", "reject") or ours not in ("ok", "reject"):
        key = f"mujoco {theirs} / mjgym {ours}"
      else:
        key = {("ok", "ok"): "both accept", ("reject", "reject"): "both reject",
               ("ok", "reject"): "MuJoCo accepts, mjgym rejects",
               ("reject", "ok"): "mjgym accepts, MuJoCo rejects"}[theirs, ours]
      counts[key] += 1
      if key not in ("both accept", "both reject"):
        why = res["mjgym"].get("error") if ours != "ok" else res["mujoco"].get("error")
        cls = (key, _shape(why or ""), " | ".join(_shape(d) for d in done))
        classes[cls] += 1
        examples.setdefault(cls, (seed.name, done, res))
      if log:
        entry = dict(i=i, seed=str(seed), mutations=done, mujoco=res["mujoco"], mjgym=res["mjgym"])
        if key not in ("both accept", "both reject") or res["mjgym"]["status"] != ours:
          entry["xml"] = text.decode("utf-8", "replace")  # to reproduce a disagreement or a step failure
        log.write(json.dumps(entry) + "\n")
      if (i + 1) % 250 == 0:
        print(f"  {i + 1} cases, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
  finally:
    for w in workers.values():
      w.close()
    mirrors.close()
    if log:
      log.close()
  print(f"{args.n} mutated models (seed {args.seed}) from {len(seeds)} seeds, {time.perf_counter() - t0:.0f} s")
  for key in ("both accept", "both reject", "MuJoCo accepts, mjgym rejects", "mjgym accepts, MuJoCo rejects"):
    print(f"  {key:32s} {counts.pop(key, 0)}")
  for key, n in sorted(counts.items()):
    print(f"  {key:32s} {n}")
  if args.steps:
    print(f"\nmj_step failures of models mjgym loaded ({args.steps} steps; the engine's part):")
    for (status, error, where), cases in sorted(stepped.items(), key=lambda kv: -len(kv[1])):
      print(f"{len(cases):5d}  {status} {error} at {where}\n       e.g. {cases[0]}")
  print("\ndisagreements by class (count, side, error of the rejecting side, mutations):")
  for cls, n in classes.most_common():
    seed, done, res = examples[cls]
    print(f"{n:5d}  {cls[0]}: {cls[1]}\n       mutations: {cls[2]}   e.g. {seed} {done}")


if __name__ == "__main__":
  main()
