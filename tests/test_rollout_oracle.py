"""The rollout oracle (tests/rollout_oracle.py): its report, model names, overrides, and what it catches."""

import mujoco
import pytest

import rollout_oracle
from mjgym import physics
from oracle import MODELS_DIR
from oracle import gym_asset

# Joints of every kind, no contacts, Newton: our steps stay on MuJoCo's trajectory to round-off.
_EXACT = MODELS_DIR / "kernel_joints.xml"


def test_exact_model_reports_no_divergence():
  r = rollout_oracle.compare(_EXACT, steps=40)
  assert set(r) == {"model", "nv", "solver", "integrator", "steps", "first_divergence", "onestep_qpos",
                    "onestep_qpos_step", "onestep_qvel", "onestep_qvel_step", "ncon_max", "ncon_mismatch",
                    "order_mismatch", "nefc_mismatch", "mujoco_resets", "state_not_copied", "seconds"}
  assert (r["model"], r["solver"], r["steps"]) == ("models/kernel_joints", "NEWTON", 40)
  assert r["first_divergence"] is None
  assert r["onestep_qpos"] < 1e-12 and r["onestep_qvel"] < 1e-12
  assert 1 <= r["onestep_qpos_step"] <= 40 and 1 <= r["onestep_qvel_step"] <= 40
  assert r["ncon_max"] == r["ncon_mismatch"] == r["order_mismatch"] == r["nefc_mismatch"] == r["mujoco_resets"] == 0
  assert r["state_not_copied"] == []


def test_catches_a_wrong_step(monkeypatch):
  """Our step nudged by 1e-5 in qpos: the free rollout leaves MuJoCo's at step 1, and the one-step error is the
  nudge."""
  step = physics.mj_step

  def nudged(m, d):
    step(m, d)
    d.qpos[0] += 1e-5

  monkeypatch.setattr(physics, "mj_step", nudged)
  r = rollout_oracle.compare(_EXACT, steps=5)
  assert r["first_divergence"] == 1
  assert r["onestep_qpos"] == pytest.approx(1e-5, rel=1e-6)


def test_overrides_reach_both_engines():
  r = rollout_oracle.compare(_EXACT, steps=5, solver="CG", integrator="RK4")
  assert (r["solver"], r["integrator"]) == ("CG", "RK4")
  assert r["first_divergence"] is None


def test_model_names():
  assert rollout_oracle.resolve("hopper") == gym_asset("hopper")
  assert rollout_oracle.resolve(str(_EXACT)) == _EXACT
  with pytest.raises(FileNotFoundError, match="'no_such_model' is neither an MJCF file nor a Gymnasium"):
    rollout_oracle.resolve("no_such_model")


def test_names_state_it_cannot_copy():
  mjm = mujoco.MjModel.from_xml_string('<mujoco><size nuserdata="3"/><worldbody/></mujoco>')
  assert rollout_oracle.state_not_copied(mjm) == ["USERDATA"]


def test_command_line_table(capsys):
  """One row per model; a model that cannot be loaded gets an error row and does not stop the others."""
  reports = rollout_oracle.main(["no_such_model", str(_EXACT), "--steps", "3", "--solver", "PGS"])
  lines = capsys.readouterr().out.splitlines()
  assert lines[0].startswith("model") and set(lines[1]) == {"-"}
  assert lines[2].startswith("no_such_model") and "error: FileNotFoundError" in lines[2]
  assert lines[3].startswith("models/kernel_joints") and "PGS" in lines[3] and "none in 3" in lines[3]
  assert len(lines) == 4 and reports[1]["solver"] == "PGS"


GYMNASIUM_MODELS = ("ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_double_pendulum",
                    "inverted_pendulum", "pusher_v5", "reacher", "swimmer", "walker2d_v5")


@pytest.mark.parametrize("name", GYMNASIUM_MODELS)
def test_gymnasium_models_follow_mujoco_under_their_own_options(name):
  """Every model a Gymnasium v5 env loads, its own solver and integrator, 500 steps of random controls with
  contacts: the free rollout stays within 1e-6 of MuJoCo's qpos, the one-step error from MuJoCo's state is
  round-off (measured: at most 2.4e-13 in qvel, on walker2d), contacts come in MuJoCo's order."""
  r = rollout_oracle.compare(gym_asset(name), steps=500)
  assert r["first_divergence"] is None
  assert r["onestep_qpos"] < 1e-12 and r["onestep_qvel"] < 1e-11
  assert r["ncon_mismatch"] == r["order_mismatch"] == r["nefc_mismatch"] == 0
  if name not in ("inverted_pendulum", "inverted_double_pendulum", "reacher", "swimmer"):
    assert r["ncon_max"] > 0  # the comparison covers contacts
