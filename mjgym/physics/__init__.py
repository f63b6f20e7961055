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
from mjgym.physics.types import BiasType as mjtBias
from mjgym.physics.types import CamLightType as mjtCamLight
from mjgym.physics.types import ConeType as mjtCone
from mjgym.physics.types import DisableBit as mjtDisableBit
from mjgym.physics.types import DynType as mjtDyn
from mjgym.physics.types import EnableBit as mjtEnableBit
from mjgym.physics.types import EqType as mjtEq
from mjgym.physics.types import GainType as mjtGain
from mjgym.physics.types import GeomType as mjtGeom
from mjgym.physics.types import IntegratorType as mjtIntegrator
from mjgym.physics.types import JointType as mjtJoint
from mjgym.physics.types import ObjType as mjtObj
from mjgym.physics.types import SolverType as mjtSolver
from mjgym.physics.types import TrnType as mjtTrn
from mjgym.physics.types import Warning as mjtWarning
from mjgym.physics.types import WrapType as mjtWrap
