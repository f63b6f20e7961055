"""The values of the enums that kernels test, as plain ints under MuJoCo's C names (``mjGEOM_BOX`` -> ``GEOM_BOX``).

Kernels use these names, Python code the enums of types.py they are taken from. numba cannot compile ``&`` or
``==`` on an IntFlag member (DisableBit, EnableBit) at all. An IntEnum member it types as a type of its own: it
compares with ints, but it does not unify with them (``GeomType.BOX if swap else m.geom_type[g]`` does not
compile), cannot fill an array, and as a kernel argument compiles another copy of the callee. A module-level int
has none of these problems: numba freezes it into the machine code as a constant, as it does a literal (the same
``icmp`` as the enum member, at the same compile time).
"""

from mjgym.physics.types import Builtin
from mjgym.physics.types import ConstraintState
from mjgym.physics.types import ConstraintType
from mjgym.physics.types import DisableBit
from mjgym.physics.types import EnableBit
from mjgym.physics.types import GeomType
from mjgym.physics.types import IntegratorType
from mjgym.physics.types import JointType
from mjgym.physics.types import Mark
from mjgym.physics.types import SameFrame
from mjgym.physics.types import TextureType
from mjgym.physics.types import Warning

# mjtJoint
JNT_FREE = int(JointType.FREE)
JNT_BALL = int(JointType.BALL)
JNT_SLIDE = int(JointType.SLIDE)
JNT_HINGE = int(JointType.HINGE)

# mjtGeom
GEOM_PLANE = int(GeomType.PLANE)
GEOM_HFIELD = int(GeomType.HFIELD)
GEOM_SPHERE = int(GeomType.SPHERE)
GEOM_CAPSULE = int(GeomType.CAPSULE)
GEOM_ELLIPSOID = int(GeomType.ELLIPSOID)
GEOM_CYLINDER = int(GeomType.CYLINDER)
GEOM_BOX = int(GeomType.BOX)
GEOM_MESH = int(GeomType.MESH)
GEOM_SDF = int(GeomType.SDF)

# mjtIntegrator
INT_EULER = int(IntegratorType.EULER)
INT_RK4 = int(IntegratorType.RK4)
INT_IMPLICIT = int(IntegratorType.IMPLICIT)
INT_IMPLICITFAST = int(IntegratorType.IMPLICITFAST)

# mjtDisableBit
DSBL_CONSTRAINT = int(DisableBit.CONSTRAINT)
DSBL_EQUALITY = int(DisableBit.EQUALITY)
DSBL_FRICTIONLOSS = int(DisableBit.FRICTIONLOSS)
DSBL_LIMIT = int(DisableBit.LIMIT)
DSBL_CONTACT = int(DisableBit.CONTACT)
DSBL_SPRING = int(DisableBit.SPRING)
DSBL_DAMPER = int(DisableBit.DAMPER)
DSBL_GRAVITY = int(DisableBit.GRAVITY)
DSBL_CLAMPCTRL = int(DisableBit.CLAMPCTRL)
DSBL_WARMSTART = int(DisableBit.WARMSTART)
DSBL_FILTERPARENT = int(DisableBit.FILTERPARENT)
DSBL_ACTUATION = int(DisableBit.ACTUATION)
DSBL_REFSAFE = int(DisableBit.REFSAFE)
DSBL_SENSOR = int(DisableBit.SENSOR)
DSBL_MIDPHASE = int(DisableBit.MIDPHASE)
DSBL_EULERDAMP = int(DisableBit.EULERDAMP)
DSBL_AUTORESET = int(DisableBit.AUTORESET)
DSBL_NATIVECCD = int(DisableBit.NATIVECCD)
DSBL_ISLAND = int(DisableBit.ISLAND)
DSBL_MULTICCD = int(DisableBit.MULTICCD)

# mjtEnableBit
ENBL_OVERRIDE = int(EnableBit.OVERRIDE)
ENBL_ENERGY = int(EnableBit.ENERGY)
ENBL_FWDINV = int(EnableBit.FWDINV)
ENBL_INVDISCRETE = int(EnableBit.INVDISCRETE)
ENBL_SLEEP = int(EnableBit.SLEEP)
ENBL_DIAGEXACT = int(EnableBit.DIAGEXACT)
ENBL_IPC = int(EnableBit.IPC)
ENBL_SPECULATIVE = int(EnableBit.SPECULATIVE)

# mjtSameFrame
SAMEFRAME_NONE = int(SameFrame.NONE)
SAMEFRAME_BODY = int(SameFrame.BODY)
SAMEFRAME_INERTIA = int(SameFrame.INERTIA)
SAMEFRAME_BODYROT = int(SameFrame.BODYROT)
SAMEFRAME_INERTIAROT = int(SameFrame.INERTIAROT)

# mjtWarning
WARN_INERTIA = int(Warning.INERTIA)
WARN_CONTACTFULL = int(Warning.CONTACTFULL)
WARN_CNSTRFULL = int(Warning.CNSTRFULL)
WARN_BADQPOS = int(Warning.BADQPOS)
WARN_BADQVEL = int(Warning.BADQVEL)
WARN_BADQACC = int(Warning.BADQACC)
WARN_BADCTRL = int(Warning.BADCTRL)

# mjtConstraint
CNSTR_EQUALITY = int(ConstraintType.EQUALITY)
CNSTR_FRICTION_DOF = int(ConstraintType.FRICTION_DOF)
CNSTR_FRICTION_TENDON = int(ConstraintType.FRICTION_TENDON)
CNSTR_LIMIT_JOINT = int(ConstraintType.LIMIT_JOINT)
CNSTR_LIMIT_TENDON = int(ConstraintType.LIMIT_TENDON)
CNSTR_CONTACT_FRICTIONLESS = int(ConstraintType.CONTACT_FRICTIONLESS)
CNSTR_CONTACT_PYRAMIDAL = int(ConstraintType.CONTACT_PYRAMIDAL)
CNSTR_CONTACT_ELLIPTIC = int(ConstraintType.CONTACT_ELLIPTIC)

# mjtConstraintState
CNSTRSTATE_SATISFIED = int(ConstraintState.SATISFIED)
CNSTRSTATE_QUADRATIC = int(ConstraintState.QUADRATIC)
CNSTRSTATE_LINEARNEG = int(ConstraintState.LINEARNEG)
CNSTRSTATE_LINEARPOS = int(ConstraintState.LINEARPOS)
CNSTRSTATE_CONE = int(ConstraintState.CONE)

# mjtTexture, mjtBuiltin, mjtMark (the renderer's textures)
TEXTURE_2D = int(TextureType.TWO_D)
BUILTIN_NONE = int(Builtin.NONE)
BUILTIN_GRADIENT = int(Builtin.GRADIENT)
BUILTIN_CHECKER = int(Builtin.CHECKER)
BUILTIN_FLAT = int(Builtin.FLAT)
MARK_EDGE = int(Mark.EDGE)
