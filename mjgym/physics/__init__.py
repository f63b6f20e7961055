"""mjgym's physics engine: MuJoCo's pipeline in numpy + numba, with the `mujoco` bindings' Python API.

``from mjgym import physics as mujoco`` lets simple scripts written for the bindings run on this engine.
"""

from mjgym.physics import _cache

_cache.configure()

# pylint: disable=g-importing-member,wrong-import-position
from mjgym.physics.containers import MjData
from mjgym.physics.containers import MjModel
from mjgym.physics.containers import MjOption
from mjgym.physics.mjcf import MJCFError
from mjgym.physics.api import mj_forward
from mjgym.physics.api import mj_fullM
from mjgym.physics.api import mj_id2name
from mjgym.physics.api import mj_name2id
from mjgym.physics.api import mj_resetData
from mjgym.physics.api import mj_resetDataKeyframe
from mjgym.physics.api import mj_rnePostConstraint
from mjgym.physics.api import mj_step
from mjgym.physics import types as _types

mjtBias = _types.bindings_enum("mjtBias", "mjBIAS_", _types.BiasType)
mjtCamLight = _types.bindings_enum("mjtCamLight", "mjCAMLIGHT_", _types.CamLightType)
mjtCone = _types.bindings_enum("mjtCone", "mjCONE_", _types.ConeType)
mjtDisableBit = _types.bindings_enum("mjtDisableBit", "mjDSBL_", _types.DisableBit)
mjtDyn = _types.bindings_enum("mjtDyn", "mjDYN_", _types.DynType)
mjtEnableBit = _types.bindings_enum("mjtEnableBit", "mjENBL_", _types.EnableBit)
mjtEq = _types.bindings_enum("mjtEq", "mjEQ_", _types.EqType)
mjtGain = _types.bindings_enum("mjtGain", "mjGAIN_", _types.GainType)
mjtGeom = _types.bindings_enum("mjtGeom", "mjGEOM_", _types.GeomType)
mjtIntegrator = _types.bindings_enum("mjtIntegrator", "mjINT_", _types.IntegratorType)
mjtJoint = _types.bindings_enum("mjtJoint", "mjJNT_", _types.JointType)
mjtObj = _types.bindings_enum("mjtObj", "mjOBJ_", _types.ObjType)
mjtSolver = _types.bindings_enum("mjtSolver", "mjSOL_", _types.SolverType)
mjtTrn = _types.bindings_enum("mjtTrn", "mjTRN_", _types.TrnType)
mjtWarning = _types.bindings_enum("mjtWarning", "mjWARN_", _types.Warning)
mjtWrap = _types.bindings_enum("mjtWrap", "mjWRAP_", _types.WrapType)
