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
from mjgym.physics import _jit
from mjgym.physics import _progress

# numba's toolchain patched for mjgym's kernels where the installed numba is the one they are written for, plain
# numba otherwise; before any kernel module is imported (numba picks a kernel's cache when it is decorated)
_jit.install()
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
from mjgym.physics.records import MjVisual
from mjgym.physics.records import MjWarningStat
from mjgym.physics.records import MjvPerturb
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
from mjgym.physics.api import mj_insideSite
from mjgym.physics.api import mj_angmomMat
from mjgym.physics.api import mj_geomDistance
from mjgym.physics.api import mj_subtreeVel
from mjgym.physics.api import mj_name2id
from mjgym.physics.api import mj_ray
from mjgym.physics.api import mj_multiRay
from mjgym.physics.api import mju_rayGeom
from mjgym.physics.api import mju_raySkin
from mjgym.physics.api import mj_checkAcc
from mjgym.physics.api import mj_checkPos
from mjgym.physics.api import mj_checkVel
from mjgym.physics.api import mj_resetData
from mjgym.physics.api import mj_resetDataKeyframe
from mjgym.physics.api import mj_rnePostConstraint
from mjgym.physics.api import mj_printSchema
from mjgym.physics.api import mju_getXMLDependencies
from mjgym.physics.api import mj_saveModel
from mjgym.physics.api import mj_setConst
from mjgym.physics.api import mj_setState
from mjgym.physics.api import mj_copyState
from mjgym.physics.api import mj_setKeyframe
from mjgym.physics.api import mj_sizeModel
from mjgym.physics.api import mj_stateSize
from mjgym.physics.api import mj_step
from mjgym.physics.api import mj_step1
from mjgym.physics.api import mj_step2
from mjgym.physics.api import mju_threadpool
from mjgym.physics.api import mj_initCtrlHistory
from mjgym.physics.api import mj_initSensorHistory
from mjgym.physics.api import mj_readCtrl
from mjgym.physics.api import mj_readSensor
from mjgym.physics.api import get_mjcb_time
from mjgym.physics.api import set_mjcb_time
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
from mjgym.physics.mju import mj_defaultSolRefImp
from mjgym.physics.mju import mju_band2Dense
from mjgym.physics.mju import mju_bandDiag
from mjgym.physics.mju import mju_bandMulMatVec
from mjgym.physics.mju import mju_cholFactorBand
from mjgym.physics.mju import mju_cholSolveBand
from mjgym.physics.mju import mju_dense2Band
from mjgym.physics.mju import mju_boxQP
from mjgym.physics.mju import mju_clip
from mjgym.physics.mju import mjd_quatIntegrate
from mjgym.physics.mju import mjd_subQuat
from mjgym.physics.mju import mju_dense2sparse
from mjgym.physics.mju import mju_euler2Quat
from mjgym.physics.mju import mju_eye
from mjgym.physics.mju import mju_fill
from mjgym.physics.mju import mju_mulVecMatVec
from mjgym.physics.mju import mju_quat2Mat
from mjgym.physics.mju import mju_rotVecQuat
from mjgym.physics.mju import mju_sparse2dense
from mjgym.physics.mju import mju_symmetrize
from mjgym.physics.mju import mju_zero
from mjgym.physics.enums import *  # noqa: F401,F403  (the mjt* enums and mj* constants, see enums.__all__)

MJTNUM_DTYPE = np.float64  # mjtNum: every real-valued field of Model and Data


def mjv_defaultFreeCamera(m, cam):  # pylint: disable=invalid-name
  """Sets ``cam`` to the model's default free camera (orbiting its centre), as in the bindings."""
  from mjgym.physics.render import default_free_camera  # pylint: disable=import-outside-toplevel
  default_free_camera(m, cam)


def mjv_updateScene(m, d, opt, pert, cam, catmask, scn):  # pylint: disable=invalid-name
  """Fills the MjvScene ``scn`` with the geoms and sites of ``d`` that ``opt`` and ``catmask`` show (render/mjv.py)."""
  from mjgym.physics.render import mjv  # pylint: disable=import-outside-toplevel
  mjv.update_scene(m, d, opt, pert, cam, catmask, scn)


# The renderer (its kernels among them) loads at first use: stepping never needs it.
_RENDER_NAMES = ("MjvCamera", "MjvOption", "Renderer")
_MJV_NAMES = ("MjvScene", "MjvGeom", "MjvLight", "MjvGLCamera")


def __getattr__(name):
  if name in _RENDER_NAMES:
    from mjgym.physics import render  # pylint: disable=import-outside-toplevel
    return getattr(render, name)
  if name in _MJV_NAMES:
    from mjgym.physics.render import mjv  # pylint: disable=import-outside-toplevel
    return getattr(mjv, name)
  raise AttributeError(f"module 'mjgym.physics' has no attribute '{name}'")
