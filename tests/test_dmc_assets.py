"""mjgym's suite assets compile field for field to dm_control's XML in MuJoCo, and equal in mjgym's engine."""

import mujoco
import pytest

import oracle
import dmc_oracle
from mjgym import physics
from mjgym.envs.base import asset_path

DOMAINS = ["cartpole", "cheetah", "walker", "hopper", "pendulum", "point_mass", "reacher", "ball_in_cup", "finger",
           "acrobot", "humanoid", "fish"]


# Assets dm_control builds in code from one XML: (asset, domain, what the domain's model takes).
GENERATED = [("swimmer6", "swimmer", (6,)), ("swimmer15", "swimmer", (15,)),
             ("manipulator_bring_ball", "manipulator", (False, False)),
             ("cartpole_two_poles", "cartpole", (2,)), ("cartpole_three_poles", "cartpole", (3,))]


@pytest.mark.parametrize("asset, domain, args", [(d, d, ()) for d in DOMAINS] + GENERATED,
                         ids=lambda v: v if isinstance(v, str) else "")
def test_asset_compiles_to_dm_controls_model(asset, domain, args):
  ours = mujoco.MjModel.from_xml_path(asset_path(f"dmc/{asset}.xml"))
  assert dmc_oracle.model_field_differences(ours, dmc_oracle.suite_model(domain, *args)) == []


@pytest.mark.parametrize("domain", DOMAINS + [asset for asset, _, _ in GENERATED])
def test_mjgym_compiles_the_asset_as_mujoco(domain):
  path = asset_path(f"dmc/{domain}.xml")
  mjm, m = mujoco.MjModel.from_xml_path(path), physics.MjModel.from_xml_path(path)
  assert oracle.model_differences(mjm, m, 1e-9) == []
  assert oracle.name_differences(mjm, m) == []
