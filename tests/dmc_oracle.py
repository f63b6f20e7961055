"""dm_control, the oracle of mjgym's suite tasks: loading it on MuJoCo 4, its models, its states.

dm_control 1.0.x names struct fields in its index tables that MuJoCo 4 removed (``flex_vertedge``, ...), and
``suite.load`` fails on them; ``load`` drops the names that the installed MuJoCo lacks before loading.
"""

import os

import mujoco
import numpy as np
import pytest

suite = pytest.importorskip("dm_control.suite")

from dm_control.mujoco.wrapper.mjbindings import sizes  # noqa: E402  pylint: disable=wrong-import-position

SUITE_DIR = os.path.dirname(suite.__file__)


def _drop_missing_fields():
  for struct, kind in (("mjmodel", mujoco.MjModel), ("mjdata", mujoco.MjData)):
    fields = sizes.array_sizes.get(struct, {})
    probe = mujoco.MjModel.from_xml_string("<mujoco/>")
    instance = probe if kind is mujoco.MjModel else mujoco.MjData(probe)
    for name in [n for n in fields if not hasattr(instance, n)]:
      del fields[name]


_drop_missing_fields()


def load(domain, task, seed):
  """dm_control's ``suite.load(domain, task)`` with ``task_kwargs={"random": seed}``."""
  return suite.load(domain, task, task_kwargs={"random": seed})


def suite_model(domain, *args):
  """MuJoCo's compile of dm_control's own XML of ``domain`` (with its common assets); ``args``: what the domain's
  model takes (the swimmer's number of links, the manipulator's use_peg and insert)."""
  module = getattr(suite, domain)
  xml, assets = module.make_model(*args) if domain == "manipulator" else module.get_model_and_assets(*args)
  return mujoco.MjModel.from_xml_string(xml, assets)


def _struct_values(obj, prefix):
  for name in dir(obj):
    if name.startswith("_"):
      continue
    value = getattr(obj, name)
    if isinstance(value, (int, float, np.ndarray)) and not isinstance(value, bool):
      yield f"{prefix}{name}", np.asarray(value)


def model_fields(mjm):
  """{name: array} of every array and number of a MuJoCo model, its options, statistics and visual settings."""
  fields = dict(_struct_values(mjm, ""))
  fields["names"] = np.frombuffer(mjm.names, np.uint8)
  fields.update(_struct_values(mjm.opt, "opt."))
  fields.update(_struct_values(mjm.stat, "stat."))
  for section in ("global_", "quality", "headlight", "map", "scale", "rgba"):
    fields.update(_struct_values(getattr(mjm.vis, section), f"vis.{section}."))
  return fields


def model_field_differences(ours, theirs):
  """Names of the fields (with the worst difference) where two MuJoCo models differ."""
  a, b = model_fields(ours), model_fields(theirs)
  out = sorted(set(a) ^ set(b))
  for name in sorted(set(a) & set(b)):
    if a[name].shape != b[name].shape:
      out.append(f"{name}: shape {a[name].shape} vs {b[name].shape}")
    elif not np.array_equal(a[name], b[name], equal_nan=a[name].dtype.kind == "f"):
      out.append(f"{name}: differs by {np.max(np.abs(a[name].astype(float) - b[name].astype(float)))}")
  return out


def state_of(physics):
  """(qpos, qvel, act, qacc_warmstart) of a dm_control Physics: what mjgym needs to continue its episode."""
  d = physics.data
  return d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.qacc_warmstart.copy()


def flat(observation):
  """dm_control's observation dict flattened in key order (as ``control.flatten_observation``)."""
  return np.concatenate([np.asarray(v, np.float64).reshape(-1) for v in observation.values()])
