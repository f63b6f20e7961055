"""The bindings' enums (``mjtJoint``, ``mjtGeom``, ...) and string tables (``mjDISABLESTRING``, ...).

Each enum answers to both spellings, ``mjJNT_HINGE`` and ``HINGE``, and has every member MuJoCo 4's has, with
its value: the engine's own enums (``types``) give most, and the bindings add counts (``mjNDISABLE``), the
renderer's geom types (``mjGEOM_ARROW``) and values of features this engine does not have (``mjDYN_DCMOTOR``), so
that scripts can name them (a model that uses such a feature is refused when it loads). Enums with no engine
counterpart (``mjtFrame``, ``mjtTimer``, the visualizer's flags) are the bindings' tables.
"""

import enum

from mjgym.physics import state as _state
from mjgym.physics import types as _types


def _bindings_enum(name, prefix, members, extra=""):
  """An enum named ``name`` whose members are ``members`` ({NAME: value}) spelled both ways, plus ``extra``
  ("mjNAME=value ..." in the bindings' spelling only)."""
  values = {}
  for member, value in members.items():
    values[member] = int(value)
    values[prefix + member] = int(value)
  for word in extra.split():
    member, value = word.split("=")
    values[member] = int(value)
  return enum.IntEnum(name, values)


def _from_engine(name, prefix, enum_cls, extra=""):
  return _bindings_enum(name, prefix, {m.name: m.value for m in enum_cls}, extra)


def _listed(name, prefix, names, extra=""):
  """An enum of consecutive values 0, 1, ... for ``names`` (space-separated)."""
  return _bindings_enum(name, prefix, {n: i for i, n in enumerate(names.split())}, extra)


mjtBias = _from_engine("mjtBias", "mjBIAS_", _types.BiasType, "mjBIAS_DCMOTOR=3 mjBIAS_SO3=4 mjBIAS_USER=5")
mjtCamLight = _from_engine("mjtCamLight", "mjCAMLIGHT_", _types.CamLightType)
mjtCone = _from_engine("mjtCone", "mjCONE_", _types.ConeType)
mjtDataType = _from_engine("mjtDataType", "mjDATATYPE_", _types.DataType)
mjtDisableBit = _from_engine("mjtDisableBit", "mjDSBL_", _types.DisableBit, "mjNDISABLE=20")
mjtDyn = _from_engine("mjtDyn", "mjDYN_", _types.DynType, "mjDYN_DCMOTOR=5 mjDYN_PID=6 mjDYN_USER=7")
mjtEnableBit = _from_engine("mjtEnableBit", "mjENBL_", _types.EnableBit, "mjNENABLE=8")
mjtEq = _from_engine("mjtEq", "mjEQ_", _types.EqType, "mjEQ_FLEXVERT=5 mjEQ_FLEXSTRAIN=6")
mjtGain = _from_engine("mjtGain", "mjGAIN_", _types.GainType,
                       "mjGAIN_DCMOTOR=3 mjGAIN_SO3=4 mjGAIN_PID=5 mjGAIN_USER=6")
mjtGeom = _from_engine("mjtGeom", "mjGEOM_", _types.GeomType,
                       "mjNGEOMTYPES=9 mjGEOM_ARROW=100 mjGEOM_ARROW1=101 mjGEOM_ARROW2=102 mjGEOM_LINE=103 "
                       "mjGEOM_LINEBOX=104 mjGEOM_FLEX=105 mjGEOM_SKIN=106 mjGEOM_LABEL=107 mjGEOM_TRIANGLE=108 "
                       "mjGEOM_NONE=1001")
mjtIntegrator = _from_engine("mjtIntegrator", "mjINT_", _types.IntegratorType, "mjINT_DISCRETE=4")
mjtJacobian = _from_engine("mjtJacobian", "mjJAC_", _types.JacobianType)
mjtJoint = _from_engine("mjtJoint", "mjJNT_", _types.JointType)
mjtObj = _from_engine("mjtObj", "mjOBJ_", _types.ObjType,
                      "mjOBJ_SKIN=11 mjOBJ_PLUGIN=25 mjNOBJECT=26 mjOBJ_FRAME=100 mjOBJ_DEFAULT=101")
mjtSensor = _from_engine("mjtSensor", "mjSENS_", _types.SensorType,
                         "mjSENS_CAMPROJECTION=8 mjSENS_TACTILE=46 mjSENS_PLUGIN=47")
mjtSolver = _from_engine("mjtSolver", "mjSOL_", _types.SolverType)
mjtStage = _from_engine("mjtStage", "mjSTAGE_", _types.Stage)
mjtState = _state.bindings_enum()
mjtTrn = _from_engine("mjtTrn", "mjTRN_", _types.TrnType, "mjTRN_SO3=6 mjTRN_UNDEFINED=1000")
mjtWarning = _from_engine("mjtWarning", "mjWARN_", _types.Warning, "mjNWARNING=7")
mjtWrap = _from_engine("mjtWrap", "mjWRAP_", _types.WrapType)
mjtLightType = _from_engine("mjtLightType", "mjLIGHT_", _types.LightType)
mjtTexture = _bindings_enum("mjtTexture", "mjTEXTURE_", {}, "mjTEXTURE_2D=0 mjTEXTURE_CUBE=1 mjTEXTURE_SKYBOX=2")
mjtColorSpace = _from_engine("mjtColorSpace", "mjCOLORSPACE_", _types.ColorSpace)
mjtBuiltin = _from_engine("mjtBuiltin", "mjBUILTIN_", _types.Builtin)
mjtMark = _from_engine("mjtMark", "mjMARK_", _types.Mark)
mjtSameFrame = _from_engine("mjtSameFrame", "mjSAMEFRAME_", _types.SameFrame)
mjtConstraint = _from_engine("mjtConstraint", "mjCNSTR_", _types.ConstraintType)
mjtConstraintState = _from_engine("mjtConstraintState", "mjCNSTRSTATE_", _types.ConstraintState)

# Enums of the visualizer, the timers and the logger: the bindings' tables.
mjtFrame = _listed("mjtFrame", "mjFRAME_", "NONE BODY GEOM SITE CAMERA LIGHT CONTACT WORLD", "mjNFRAME=8")
mjtTimer = _listed("mjtTimer", "mjTIMER_",
                   "STEP FORWARD INVERSE POSITION VELOCITY ACTUATION CONSTRAINT ADVANCE POS_KINEMATICS POS_INERTIA "
                   "POS_COLLISION POS_MAKE POS_PROJECT COL_BROAD COL_NARROW", f"mjNTIMER={_types.NTIMER}")
mjtCamera = _listed("mjtCamera", "mjCAMERA_", "FREE TRACKING FIXED USER")
mjtLabel = _listed("mjtLabel", "mjLABEL_",
                   "NONE BODY JOINT GEOM SITE CAMERA LIGHT TENDON ACTUATOR CONSTRAINT FLEX SKIN SELECTION SELPNT "
                   "CONTACTPOINT CONTACTFORCE ISLAND", "mjNLABEL=17")
mjtVisFlag = _listed("mjtVisFlag", "mjVIS_",
                     "CONVEXHULL TEXTURE JOINT CAMERA ACTUATOR ACTIVATION LIGHT TENDON RANGEFINDER CONSTRAINT INERTIA "
                     "SCLINERTIA PERTFORCE PERTOBJ CONTACTPOINT ISLAND CONTACTFORCE CONTACTSPLIT TRANSPARENT "
                     "AUTOCONNECT COM SELECT STATIC SKIN FLEXVERT FLEXEDGE FLEXFACE FLEXSKIN BODYBVH MESHBVH SDFITER",
                     "mjNVISFLAG=31")
mjtRndFlag = _listed("mjtRndFlag", "mjRND_",
                     "SHADOW WIREFRAME REFLECTION ADDITIVE SKYBOX FOG HAZE DEPTH SEGMENT IDCOLOR CULL_FACE "
                     "POST_PROCESSING", "mjNRNDFLAG=12")
mjtCatBit = _bindings_enum("mjtCatBit", "mjCAT_", {"STATIC": 1, "DYNAMIC": 2, "DECOR": 4, "ALL": 7})
mjtPertBit = _bindings_enum("mjtPertBit", "mjPERT_", {"TRANSLATE": 1, "ROTATE": 2})
mjtLogTopic = _listed("mjtLogTopic", "mjTOPIC_", "NONE TIME_STP TIME_CMP SLEEP", "mjNTOPIC=3")

# The names MuJoCo's user interfaces show for flags, timers, labels and frames, in enum order; the visualizer
# and render tables are (name, default "0"/"1", shortcut key).
mjDISABLESTRING = ("Constraint", "Equality", "Frictionloss", "Limit", "Contact", "Spring", "Damper", "Gravity",
                   "Clampctrl", "Warmstart", "Filterparent", "Actuation", "Refsafe", "Sensor", "Midphase",
                   "Eulerdamp", "AutoReset", "NativeCCD", "Island", "MultiCCD")
mjENABLESTRING = ("Override", "Energy", "Fwdinv", "InvDiscrete", "Sleep", "DiagExact", "IPC", "Speculative")
mjTIMERSTRING = ("step", "forward", "inverse", "position", "velocity", "actuation", "constraint", "advance",
                 "pos_kinematics", "pos_inertia", "pos_collision", "pos_make", "pos_project", "col_broadphase",
                 "col_narrowphase")
mjLABELSTRING = ("None", "Body", "Joint", "Geom", "Site", "Camera", "Light", "Tendon", "Actuator", "Constraint",
                 "Flex", "Skin", "Selection", "SelPoint", "Contact", "ContactForce", "Island")
mjFRAMESTRING = ("None", "Body", "Geom", "Site", "Camera", "Light", "Contact", "World")
mjVISSTRING = tuple(tuple(row.split("|")) for row in (
    "Convex Hull|0|H", "Texture|1|X", "Joint|0|J", "Camera|0|Q", "Actuator|0|U", "Activation|0|,", "Light|0|Z",
    "Tendon|1|V", "Range Finder|1|Y", "Equality|0|E", "Inertia|0|I", "Scale Inertia|0|'", "Perturb Force|0|B",
    "Perturb Object|1|O", "Contact Point|0|C", "Island|0|N", "Contact Force|0|F", "Contact Split|0|P",
    "Transparent|0|T", "Auto Connect|0|A", "Center of Mass|0|M", "Select Point|0|", "Static Body|1|D", "Skin|1|;",
    "Flex Vert|0|", "Flex Edge|1|", "Flex Face|0|", "Flex Skin|1|", "Body Tree|0|`", "Mesh Tree|0|\\",
    "SDF iters|0|"))
mjRNDSTRING = tuple(tuple(row.split("|")) for row in (
    "Shadow|1|S", "Wireframe|0|W", "Reflection|1|R", "Additive|0|L", "Skybox|1|K", "Fog|0|G", "Haze|1|/",
    "Depth|0|", "Segment|0|,", "Id Color|0|", "Cull Face|1|", "Post Processing|1|"))

mjNREF = 2  # solref parameters
mjNIMP = 5  # solimp parameters
mjMAXVAL = _types.MAXVAL  # largest value a state or control may take
mjMINVAL = _types.MINVAL  # smallest value a divisor may take

__all__ = [name for name in dir() if name.startswith("mj")]
