"""mjgym's physics engine: MuJoCo's pipeline in numpy + numba, with the `mujoco` bindings' Python API.

``from mjgym import physics as mujoco`` lets simple scripts written for the bindings run on this engine.
"""

import os

import numpy as np

# OpenMP's default wait policy keeps idle threads spinning for a while after each parallel region. When
# another process or torch's own OpenMP threads share the cores, those spins eat the time slices the working
# threads need: a 2-thread hopper batch step ran 10-20x slower than 1 thread on a busy 2-core machine
# (docs/vector.md). Passive waiting costs microseconds per call and removes the collapse. It must be set before
# an OpenMP runtime loads (numba loads one at its first parallel call, torch at import); a value the user set
# wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# pylint: disable=wrong-import-position
from mjgym.physics import _cache
from mjgym.physics import _index  # pylint: disable=unused-import  (patches numba's indexing: before any kernel)
from mjgym.physics import _progress

_cache.configure()
_progress.install()

# pylint: disable=g-importing-member,wrong-import-position
from mjgym.physics.containers import MjData
from mjgym.physics.model import MjModel
from mjgym.physics.records import MjContact
from mjgym.physics.records import MjLROpt
from mjgym.physics.records import MjOption
from mjgym.physics.records import MjSolverStat
from mjgym.physics.records import MjStatistic
from mjgym.physics.records import MjTimerStat
from mjgym.physics.records import MjWarningStat
from mjgym.physics.mjcf import MJCFError
from mjgym.physics.types import FatalError
from mjgym.physics.api import mj_contactForce
from mjgym.physics.api import mj_copyData
from mjgym.physics.api import mj_energyPos
from mjgym.physics.api import mj_energyVel
from mjgym.physics.api import mj_forward
from mjgym.physics.api import mj_fullM
from mjgym.physics.api import mj_getState
from mjgym.physics.api import mj_id2name
from mjgym.physics.api import mj_jac
from mjgym.physics.api import mj_jacBody
from mjgym.physics.api import mj_jacBodyCom
from mjgym.physics.api import mj_jacGeom
from mjgym.physics.api import mj_jacSite
from mjgym.physics.api import mj_name2id
from mjgym.physics.api import mj_ray
from mjgym.physics.api import mj_resetData
from mjgym.physics.api import mj_resetDataKeyframe
from mjgym.physics.api import mj_rnePostConstraint
from mjgym.physics.api import mj_saveModel
from mjgym.physics.api import mj_setConst
from mjgym.physics.api import mj_setState
from mjgym.physics.api import mj_sizeModel
from mjgym.physics.api import mj_stateSize
from mjgym.physics.api import mj_step
from mjgym.physics.api import mj_step1
from mjgym.physics.api import mj_step2
from mjgym.physics.api import mju_threadpool
from mjgym.physics.api import get_mjcb_control
from mjgym.physics.api import get_mjcb_passive
from mjgym.physics.api import set_mjcb_control
from mjgym.physics.api import set_mjcb_passive
from mjgym.physics.api import set_mjcb_sensor
from mjgym.physics.api_dynamics import mj_differentiatePos
from mjgym.physics.api_dynamics import mj_integratePos
from mjgym.physics.api_dynamics import mj_inverse
from mjgym.physics.api_dynamics import mjd_inverseFD
from mjgym.physics.api_dynamics import mjd_transitionFD
from mjgym.physics.batch import MjDataBatch
from mjgym.physics import state as _state
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
mjtSensor = _types.bindings_enum("mjtSensor", "mjSENS_", _types.SensorType)
mjtSolver = _types.bindings_enum("mjtSolver", "mjSOL_", _types.SolverType)
mjtState = _state.bindings_enum()
mjtStage = _types.bindings_enum("mjtStage", "mjSTAGE_", _types.Stage)
mjtDataType = _types.bindings_enum("mjtDataType", "mjDATATYPE_", _types.DataType)
mjtTrn = _types.bindings_enum("mjtTrn", "mjTRN_", _types.TrnType)
mjtWarning = _types.bindings_enum("mjtWarning", "mjWARN_", _types.Warning)
mjtWrap = _types.bindings_enum("mjtWrap", "mjWRAP_", _types.WrapType)
MJTNUM_DTYPE = np.float64  # mjtNum: every real-valued field of Model and Data
mjMAXVAL = _types.MAXVAL  # largest value a state or control may take
mjMINVAL = _types.MINVAL  # smallest value a divisor may take


def mjv_defaultFreeCamera(m, cam):  # pylint: disable=invalid-name
  """Sets ``cam`` to the model's default free camera (orbiting its centre), as in the bindings."""
  from mjgym.physics.render import default_free_camera  # pylint: disable=import-outside-toplevel
  default_free_camera(m, cam)


# The renderer (its kernels among them) loads at first use: stepping never needs it.
_RENDER_NAMES = ("MjvCamera", "MjvOption", "Renderer")


def __getattr__(name):
  if name in _RENDER_NAMES:
    from mjgym.physics import render  # pylint: disable=import-outside-toplevel
    return getattr(render, name)
  raise AttributeError(f"module 'mjgym.physics' has no attribute '{name}'")
