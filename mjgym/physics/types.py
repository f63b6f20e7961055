"""Enums, and the field tables of MjModel and MjData.

Field names, shapes and meanings follow MuJoCo's ``mjModel`` / ``mjData`` (see the MuJoCo API reference).
Each table row is ``name dtype shape...``: ``dtype`` is ``int`` (int32 arrays, int64 scalars), ``float``
(float64) or ``u8`` (uint8); shape entries are size names (``nbody``) or integers; a row without a shape is a
scalar size. The numba structref types, their constructors and the Python containers are generated from
these tables (``tools/gen_structs.py`` writes ``_structs.py``), so a field is added in exactly one place.

Options (``opt_*``) are one-element arrays so that ``m.opt.timestep = ...`` from Python reaches compiled code.
"""

import enum


class JointType(enum.IntEnum):
  """mjtJoint."""
  FREE = 0
  BALL = 1
  SLIDE = 2
  HINGE = 3


class GeomType(enum.IntEnum):
  """mjtGeom."""
  PLANE = 0
  HFIELD = 1
  SPHERE = 2
  CAPSULE = 3
  ELLIPSOID = 4
  CYLINDER = 5
  BOX = 6
  MESH = 7
  SDF = 8


class IntegratorType(enum.IntEnum):
  """mjtIntegrator."""
  EULER = 0
  RK4 = 1
  IMPLICIT = 2
  IMPLICITFAST = 3


class SolverType(enum.IntEnum):
  """mjtSolver."""
  PGS = 0
  CG = 1
  NEWTON = 2


class ConeType(enum.IntEnum):
  """mjtCone."""
  PYRAMIDAL = 0
  ELLIPTIC = 1


class JacobianType(enum.IntEnum):
  """mjtJacobian."""
  DENSE = 0
  SPARSE = 1
  AUTO = 2


class DisableBit(enum.IntFlag):
  """mjtDisableBit."""
  CONSTRAINT = 1
  EQUALITY = 2
  FRICTIONLOSS = 4
  LIMIT = 8
  CONTACT = 16
  SPRING = 32
  DAMPER = 64
  GRAVITY = 128
  CLAMPCTRL = 256
  WARMSTART = 512
  FILTERPARENT = 1024
  ACTUATION = 2048
  REFSAFE = 4096
  SENSOR = 8192
  MIDPHASE = 16384
  EULERDAMP = 32768
  AUTORESET = 65536
  NATIVECCD = 131072
  ISLAND = 262144
  MULTICCD = 524288


class EnableBit(enum.IntFlag):
  """mjtEnableBit."""
  OVERRIDE = 1
  ENERGY = 2
  FWDINV = 4
  INVDISCRETE = 8
  SLEEP = 16
  DIAGEXACT = 32
  IPC = 64
  SPECULATIVE = 128


class TrnType(enum.IntEnum):
  """mjtTrn."""
  JOINT = 0
  JOINTINPARENT = 1
  SLIDERCRANK = 2
  TENDON = 3
  SITE = 4
  BODY = 5


class DynType(enum.IntEnum):
  """mjtDyn."""
  NONE = 0
  INTEGRATOR = 1
  FILTER = 2
  FILTEREXACT = 3
  MUSCLE = 4


class GainType(enum.IntEnum):
  """mjtGain."""
  FIXED = 0
  AFFINE = 1
  MUSCLE = 2


class BiasType(enum.IntEnum):
  """mjtBias."""
  NONE = 0
  AFFINE = 1
  MUSCLE = 2


class EqType(enum.IntEnum):
  """mjtEq."""
  CONNECT = 0
  WELD = 1
  JOINT = 2
  TENDON = 3
  DISTANCE = 7


class WrapType(enum.IntEnum):
  """mjtWrap."""
  NONE = 0
  JOINT = 1
  PULLEY = 2
  SITE = 3
  SPHERE = 4
  CYLINDER = 5



class SensorType(enum.IntEnum):
  """mjtSensor (MuJoCo 4 numbering)."""
  TOUCH = 0
  ACCELEROMETER = 1
  VELOCIMETER = 2
  GYRO = 3
  FORCE = 4
  TORQUE = 5
  MAGNETOMETER = 6
  RANGEFINDER = 7
  JOINTPOS = 9
  JOINTVEL = 10
  TENDONPOS = 11
  TENDONVEL = 12
  ACTUATORPOS = 13
  ACTUATORVEL = 14
  ACTUATORFRC = 15
  JOINTACTFRC = 16
  TENDONACTFRC = 17
  BALLQUAT = 18
  BALLANGVEL = 19
  JOINTLIMITPOS = 20
  JOINTLIMITVEL = 21
  JOINTLIMITFRC = 22
  TENDONLIMITPOS = 23
  TENDONLIMITVEL = 24
  TENDONLIMITFRC = 25
  FRAMEPOS = 26
  FRAMEQUAT = 27
  FRAMEXAXIS = 28
  FRAMEYAXIS = 29
  FRAMEZAXIS = 30
  FRAMELINVEL = 31
  FRAMEANGVEL = 32
  FRAMELINACC = 33
  FRAMEANGACC = 34
  SUBTREECOM = 35
  SUBTREELINVEL = 36
  SUBTREEANGMOM = 37
  CLOCK = 45
  USER = 48


class Stage(enum.IntEnum):
  """mjtStage."""
  NONE = 0
  POS = 1
  VEL = 2
  ACC = 3


class DataType(enum.IntEnum):
  """mjtDataType."""
  REAL = 0
  POSITIVE = 1
  AXIS = 2
  QUATERNION = 3


class SameFrame(enum.IntEnum):
  """mjtSameFrame: which frame of its body an object's frame coincides with (kinematics copies it)."""
  NONE = 0
  BODY = 1
  INERTIA = 2
  BODYROT = 3
  INERTIAROT = 4


class CamLightType(enum.IntEnum):
  """mjtCamLight."""
  FIXED = 0
  TRACK = 1
  TRACKCOM = 2
  TARGETBODY = 3
  TARGETBODYCOM = 4


class LightType(enum.IntEnum):
  """mjtLightType."""
  SPOT = 0
  DIRECTIONAL = 1
  POINT = 2
  IMAGE = 3


class TextureType(enum.IntEnum):
  """mjtTexture (``TWO_D`` is mjTEXTURE_2D)."""
  TWO_D = 0
  CUBE = 1
  SKYBOX = 2


class ColorSpace(enum.IntEnum):
  """mjtColorSpace."""
  AUTO = 0
  LINEAR = 1
  SRGB = 2


class Builtin(enum.IntEnum):
  """mjtBuiltin: the procedural texture patterns."""
  NONE = 0
  GRADIENT = 1
  CHECKER = 2
  FLAT = 3


class Mark(enum.IntEnum):
  """mjtMark: what a builtin texture draws over its pattern."""
  NONE = 0
  EDGE = 1
  CROSS = 2
  RANDOM = 3


class ObjType(enum.IntEnum):
  """mjtObj."""
  UNKNOWN = 0
  BODY = 1
  XBODY = 2
  JOINT = 3
  DOF = 4
  GEOM = 5
  SITE = 6
  CAMERA = 7
  LIGHT = 8
  MESH = 10
  HFIELD = 12
  TEXTURE = 13
  MATERIAL = 14
  PAIR = 15
  EXCLUDE = 16
  EQUALITY = 17
  TENDON = 18
  ACTUATOR = 19
  SENSOR = 20
  NUMERIC = 21
  TEXT = 22
  TUPLE = 23
  KEY = 24


class Warning(enum.IntEnum):  # noqa: A001 - mirrors mjtWarning
  """mjtWarning."""
  INERTIA = 0
  CONTACTFULL = 1
  CNSTRFULL = 2
  BADQPOS = 3
  BADQVEL = 4
  BADQACC = 5
  BADCTRL = 6


class ConstraintType(enum.IntEnum):
  """mjtConstraint: the family of an efc row."""
  EQUALITY = 0
  FRICTION_DOF = 1
  FRICTION_TENDON = 2
  LIMIT_JOINT = 3
  LIMIT_TENDON = 4
  CONTACT_FRICTIONLESS = 5
  CONTACT_PYRAMIDAL = 6
  CONTACT_ELLIPTIC = 7


class ConstraintState(enum.IntEnum):
  """mjtConstraintState: which piece of its cost an efc row is on at the solution."""
  SATISFIED = 0
  QUADRATIC = 1
  LINEARNEG = 2
  LINEARPOS = 3
  CONE = 4


# Iterations whose statistics the solver keeps (MuJoCo's mjNSOLVER).
NSOLVER = 200

# Islands whose solver iteration counts Data keeps (MuJoCo's mjNISLAND).
NISLAND = 20

# Rows of A + R = J M⁻¹ Jᵀ + R that the dual solvers keep in Data; larger problems recompute entries.
NARMAX = 256


NWARNING = 7
# Most contacts one geom pair may produce (MuJoCo's mjMAXCONPAIR); height fields make one per prism.
MAXCONPAIR = 50
# Values whose magnitude exceeds this are treated as divergence (MuJoCo's mjMAXVAL).
MAXVAL = 1e10
# Smallest mass or inertia allowed where the compiler has to divide by it (MuJoCo's mjMINVAL).
MINVAL = 1e-15


# Model: sizes, options, then one block per object type.
MODEL_FIELDS = """
nq int
nv int
nu int
na int
nbody int
njnt int
ngeom int
nsite int
ncam int
nlight int
nmesh int
nmeshvert int
nmeshface int
nhfield int
nhfielddata int
nmat int
ntex int
ntexdata int
ntendon int
nwrap int
neq int
npair int
nexclude int
nkey int
nmocap int
nM int
nsensor int
nsensordata int
nconmax int
njmax int
ntree int
narmax int

opt_timestep float 1
opt_impratio float 1
opt_tolerance float 1
opt_ls_tolerance float 1
opt_noslip_tolerance float 1
opt_ccd_tolerance float 1
opt_gravity float 3
opt_wind float 3
opt_magnetic float 3
opt_density float 1
opt_viscosity float 1
opt_o_margin float 1
opt_o_solref float 2
opt_o_solimp float 5
opt_o_friction float 5
opt_integrator int 1
opt_cone int 1
opt_jacobian int 1
opt_solver int 1
opt_iterations int 1
opt_ls_iterations int 1
opt_noslip_iterations int 1
opt_ccd_iterations int 1
opt_disableflags int 1
opt_enableflags int 1

qpos0 float nq
qpos_spring float nq

body_parentid int nbody
body_rootid int nbody
body_weldid int nbody
body_mocapid int nbody
body_jntnum int nbody
body_jntadr int nbody
body_dofnum int nbody
body_dofadr int nbody
body_geomnum int nbody
body_geomadr int nbody
body_pos float nbody 3
body_quat float nbody 4
body_ipos float nbody 3
body_iquat float nbody 4
body_mass float nbody
body_subtreemass float nbody
body_inertia float nbody 3
body_gravcomp float nbody
body_treeid int nbody
tree_dofadr int ntree
tree_dofnum int ntree
body_sameframe int nbody
body_simple int nbody

jnt_type int njnt
jnt_qposadr int njnt
jnt_dofadr int njnt
jnt_bodyid int njnt
jnt_group int njnt
jnt_limited int njnt
jnt_pos float njnt 3
jnt_axis float njnt 3
jnt_stiffness float njnt
jnt_range float njnt 2
jnt_margin float njnt
jnt_solref float njnt 2
jnt_solimp float njnt 5
jnt_actfrclimited int njnt
jnt_actfrcrange float njnt 2
jnt_actgravcomp int njnt

dof_bodyid int nv
dof_jntid int nv
dof_parentid int nv
dof_treeid int nv
dof_Madr int nv
dof_armature float nv
dof_damping float nv
dof_frictionloss float nv
dof_solref float nv 2
dof_solimp float nv 5

geom_type int ngeom
geom_contype int ngeom
geom_conaffinity int ngeom
geom_condim int ngeom
geom_bodyid int ngeom
geom_dataid int ngeom
geom_matid int ngeom
geom_group int ngeom
geom_priority int ngeom
geom_solmix float ngeom
geom_solref float ngeom 2
geom_solimp float ngeom 5
geom_size float ngeom 3
geom_rbound float ngeom
geom_pos float ngeom 3
geom_quat float ngeom 4
geom_friction float ngeom 3
geom_margin float ngeom
geom_gap float ngeom
geom_rgba float ngeom 4
geom_sameframe int ngeom

site_type int nsite
site_bodyid int nsite
site_group int nsite
site_size float nsite 3
site_pos float nsite 3
site_quat float nsite 4
site_rgba float nsite 4
site_matid int nsite
site_sameframe int nsite

cam_mode int ncam
cam_bodyid int ncam
cam_targetbodyid int ncam
cam_pos float ncam 3
cam_quat float ncam 4
cam_poscom0 float ncam 3
cam_pos0 float ncam 3
cam_mat0 float ncam 9
cam_fovy float ncam
cam_ipd float ncam

light_mode int nlight
light_bodyid int nlight
light_targetbodyid int nlight
light_type int nlight
light_castshadow int nlight
light_active int nlight
light_pos float nlight 3
light_dir float nlight 3
light_poscom0 float nlight 3
light_pos0 float nlight 3
light_dir0 float nlight 3
light_attenuation float nlight 3
light_cutoff float nlight
light_exponent float nlight
light_ambient float nlight 3
light_diffuse float nlight 3
light_specular float nlight 3

mesh_vertadr int nmesh
mesh_vertnum int nmesh
mesh_faceadr int nmesh
mesh_facenum int nmesh
mesh_vert float nmeshvert 3
mesh_face int nmeshface 3

mat_texid int nmat
mat_texuniform int nmat
mat_texrepeat float nmat 2
mat_emission float nmat
mat_specular float nmat
mat_shininess float nmat
mat_reflectance float nmat
mat_rgba float nmat 4

tex_type int ntex
tex_height int ntex
tex_width int ntex
tex_nchannel int ntex
tex_adr int ntex
tex_colorspace int ntex
tex_data u8 ntexdata

tex_builtin int ntex
tex_mark int ntex
tex_rgb1 float ntex 3
tex_rgb2 float ntex 3
tex_markrgb float ntex 3
tex_random float ntex
vis_global_fovy float 1
vis_global_azimuth float 1
vis_global_elevation float 1
vis_headlight_ambient float 3
vis_headlight_diffuse float 3
vis_headlight_specular float 3
vis_headlight_active int 1
vis_map_znear float 1
vis_map_zfar float 1
vis_map_haze float 1
vis_map_shadowclip float 1
vis_rgba_haze float 4
vis_quality_offsamples int 1
vis_quality_shadowsize int 1

tendon_adr int ntendon
tendon_num int ntendon
tendon_limited int ntendon
tendon_solref_lim float ntendon 2
tendon_solimp_lim float ntendon 5
tendon_solref_fri float ntendon 2
tendon_solimp_fri float ntendon 5
tendon_range float ntendon 2
tendon_margin float ntendon
tendon_stiffness float ntendon
tendon_damping float ntendon
tendon_frictionloss float ntendon
tendon_lengthspring float ntendon 2
tendon_length0 float ntendon
tendon_group int ntendon
tendon_matid int ntendon
tendon_width float ntendon
tendon_rgba float ntendon 4

wrap_type int nwrap
wrap_objid int nwrap
wrap_prm float nwrap

actuator_trntype int nu
actuator_dyntype int nu
actuator_gaintype int nu
actuator_biastype int nu
actuator_trnid int nu 2
actuator_actadr int nu
actuator_actnum int nu
actuator_group int nu
actuator_ctrllimited int nu
actuator_forcelimited int nu
actuator_actlimited int nu
actuator_actearly int nu
actuator_dynprm float nu 10
actuator_gainprm float nu 10
actuator_biasprm float nu 10
actuator_ctrlrange float nu 2
actuator_forcerange float nu 2
actuator_actrange float nu 2
actuator_gear float nu 6
actuator_cranklength float nu
actuator_length0 float nu
actuator_lengthrange float nu 2

sensor_type int nsensor
sensor_datatype int nsensor
sensor_needstage int nsensor
sensor_objtype int nsensor
sensor_objid int nsensor
sensor_reftype int nsensor
sensor_refid int nsensor
sensor_dim int nsensor
sensor_adr int nsensor
sensor_cutoff float nsensor
sensor_noise float nsensor
actuator_acc0 float nu

eq_type int neq
eq_obj1id int neq
eq_obj2id int neq
eq_objtype int neq
eq_active0 int neq
eq_solref float neq 2
eq_solimp float neq 5
eq_data float neq 12

pair_dim int npair
pair_geom1 int npair
pair_geom2 int npair
pair_signature int npair
pair_solref float npair 2
pair_solreffriction float npair 2
pair_solimp float npair 5
pair_margin float npair
pair_gap float npair
pair_friction float npair 5

exclude_signature int nexclude

geom_aabb float ngeom 6
nmeshhull int
mesh_hulladr int nmesh
mesh_hullnum int nmesh
mesh_hullvert float nmeshhull 3
nmeshhullface int
mesh_hullfaceadr int nmesh
mesh_hullfacenum int nmesh
mesh_hullface int nmeshhullface 3
nmeshpoly int
nmeshpolyvert int
nmeshpolymap int
mesh_polynum int nmesh
mesh_polyadr int nmesh
mesh_polynormal float nmeshpoly 3
mesh_polyvertadr int nmeshpoly
mesh_polyvertnum int nmeshpoly
mesh_polyvert int nmeshpolyvert
mesh_polymapadr int nmeshvert
mesh_polymapnum int nmeshvert
mesh_polymap int nmeshpolymap

hfield_size float nhfield 4
hfield_nrow int nhfield
hfield_ncol int nhfield
hfield_adr int nhfield
hfield_data float nhfielddata

key_time float nkey
key_qpos float nkey nq
key_qvel float nkey nv
key_act float nkey na
key_mpos float nkey nmocap 3
key_mquat float nkey nmocap 4
key_ctrl float nkey nu
dof_invweight0 float nv
body_invweight0 float nbody 2
tendon_invweight0 float ntendon
stat_meaninertia float 1
stat_meanmass float 1
stat_meansize float 1
stat_extent float 1
stat_center float 3
"""

# Data: state, inputs, then the outputs of each stage, then scratch space owned by the step path.
DATA_FIELDS = """
time float 1
qpos float nq
qvel float nv
act float na
qacc_warmstart float nv
ctrl float nu
qfrc_applied float nv
xfrc_applied float nbody 6
mocap_pos float nmocap 3
mocap_quat float nmocap 4
qacc float nv
act_dot float na
sensordata float nsensordata
energy float 2
warning_number int 7
warning_lastinfo int 7

ncon int 1
contact_dist float nconmax
contact_pos float nconmax 3
contact_frame float nconmax 9
contact_includemargin float nconmax
contact_friction float nconmax 5
contact_solref float nconmax 2
contact_solreffriction float nconmax 2
contact_solimp float nconmax 5
contact_mu float nconmax
contact_dim int nconmax
contact_geom1 int nconmax
contact_geom2 int nconmax
contact_exclude int nconmax
contact_efc_address int nconmax

xpos float nbody 3
xquat float nbody 4
xmat float nbody 9
xipos float nbody 3
ximat float nbody 9
xanchor float njnt 3
xaxis float njnt 3
geom_xpos float ngeom 3
geom_xmat float ngeom 9
site_xpos float nsite 3
site_xmat float nsite 9
cam_xpos float ncam 3
cam_xmat float ncam 9
light_xpos float nlight 3
light_xdir float nlight 3
subtree_com float nbody 3
cdof float nv 6
cinert float nbody 10
ten_length float ntendon
ten_J float ntendon nv
actuator_length float nu
actuator_moment float nu nv
crb float nbody 10
qM float nM
qLD float nM
qLDiagInv float nv

ten_velocity float ntendon
actuator_velocity float nu
cvel float nbody 6
cdof_dot float nv 6
qfrc_bias float nv
qfrc_spring float nv
qfrc_damper float nv
qfrc_fluid float nv
qfrc_passive float nv
qfrc_gravcomp float nv

actuator_force float nu
qfrc_actuator float nv
qfrc_smooth float nv
qacc_smooth float nv
qfrc_constraint float nv
cacc float nbody 6
cfrc_int float nbody 6
cfrc_ext float nbody 6

subtree_linvel float nbody 3
subtree_angmom float nbody 3
ten_wrapadr int ntendon
ten_wrapnum int ntendon
wrap_obj int nwrap 2
wrap_xpos float nwrap 6

qDeriv float nv nv
qH float nM
qHDiagInv float nv
qLU float nv nv
qLU_piv int nv
deriv_cvel float nbody 6
deriv_cdof_dot float nv 6
deriv_cacc float nbody 6
deriv_cfrc float nbody 6
rk_qpos float nq
rk_qvel float nv
rk_act float na
rk_F float 4 nv2na
rk_dX float nv2na
scratch_nv float 4 nv
jac_p float 3 nv
jac_r float 3 nv
rne_cacc float nbody 6
rne_cfrc float nbody 6

col_aabb float ngeom 6
col_order int ngeom
col_buf int ngeom
col_vert float 3 128 3
col_face int 256 7
col_plane float 256 4
col_edge int 384 3
col_prism float 6 3
eq_active u8 neq
ne int 1
nf int 1
nl int 1
nefc int 1
efc_type int njmax
efc_id int njmax
efc_J float njmax nv
efc_pos float njmax
efc_margin float njmax
efc_frictionloss float njmax
efc_diagA float njmax
efc_KBIP float njmax 4
efc_D float njmax
efc_R float njmax
efc_vel float njmax
efc_aref float njmax
efc_b float njmax
efc_state int njmax
efc_force float njmax
solver_niter int 20
solver_improvement float 200
solver_gradient float 200
solver_lineslope float 200
solver_nactive int 200
solver_nchange int 200
solver_neval int 200
efc_jar float njmax
efc_jv float njmax
efc_quad float njmax 3
efc_Y float njmax nv
solver_H float nv nv
solver_vec float 10 nv
solver_block float 10 6
solver_mat float 2 6 6
solver_work float 13 6
efc_AR float narmax narmax
solver_efc float 4 njmax
solver_efcint int 3 njmax
nisland int 1
nidof int 1
tree_island int ntree
island_nv int ntree
island_idofadr int ntree
island_ne int ntree
island_nf int ntree
island_nefc int ntree
island_iefcadr int ntree
dof_island int nv
map_dof2idof int nv
map_idof2dof int nv
efc_island int njmax
map_efc2iefc int njmax
map_iefc2efc int njmax
"""


def bindings_enum(name, prefix, enum_cls):
  """``enum_cls`` under the `mujoco` bindings' name, whose members answer to both spellings: ``HINGE``
  and ``mjJNT_HINGE``, so that code written for the bindings runs unchanged."""
  members = {}
  for member in enum_cls:
    members[member.name] = member.value
    members[prefix + member.name] = member.value
  base = enum.IntFlag if issubclass(enum_cls, enum.IntFlag) else enum.IntEnum
  return base(name, members)


def parse_fields(table):
  """Rows of a field table as ``(name, dtype, shape)``; ``shape`` is None for scalar sizes."""
  rows = []
  for line in table.strip().splitlines():
    parts = line.split()
    if not parts:
      continue
    name, dtype, *shape = parts
    rows.append((name, dtype, tuple(int(s) if s.isdigit() else s for s in shape) if shape else None))
  return rows


MODEL_ROWS = parse_fields(MODEL_FIELDS)
DATA_ROWS = parse_fields(DATA_FIELDS)
MODEL_SIZES = tuple(name for name, _, shape in MODEL_ROWS if shape is None)
