"""Enums, and the field tables of MjModel and MjData.

Field names, shapes and meanings follow MuJoCo's ``mjModel`` / ``mjData`` (see the MuJoCo API reference), and the
tables keep MuJoCo's grouping: a line ``# Title`` opens a section, in the order of ``mjmodel.h`` / ``mjdata.h``;
mjgym's own scratch space closes the Data table, one section per module that owns it. Each row is
``name dtype shape... | meaning``: ``dtype`` is ``int`` (int32 arrays, int64 scalars), ``float`` (float64) or
``u8`` (uint8); shape entries are size names (``nbody``) or integers; a row without a shape is a scalar size; the
meaning is one line, with units where they apply. The numba structref types, their constructors and the field
reference docs/fields.md are generated from these tables (``tools/gen_structs.py``), and the Python containers
read them, so a field is added in exactly one place.

Options (``opt_*``) are one-element arrays so that ``m.opt.timestep = ...`` from Python reaches compiled code.
"""

import enum
import typing


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
  FLEX = 4
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
  INSIDESITE = 38
  GEOMDIST = 39
  GEOMNORMAL = 40
  GEOMFROMTO = 41
  CONTACT = 42
  E_POTENTIAL = 43
  E_KINETIC = 44
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
  FLEX = 9
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
  MODEL = 102  # the model itself: its name, first in the bindings' names buffer


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
class FatalError(Exception):
  """What MuJoCo's mju_error raises in the bindings (``mujoco.FatalError``): the engine cannot go on with this
  model or data (an unknown solver type, say)."""


NSOLVER = 200

# Islands whose solver iteration counts Data keeps (MuJoCo's mjNISLAND).
NISLAND = 20

# Rows of A + R = J M⁻¹ Jᵀ + R that the dual solvers keep in Data; larger problems recompute entries.
NARMAX = 256


NWARNING = 7
# timers of the bindings' mjData (mjNTIMER): the engine times nothing, they are there for scripts that read them
NTIMER = 15
# Most contacts one geom pair may produce (MuJoCo's mjMAXCONPAIR); height fields make one per prism.
MAXCONPAIR = 50
# Values whose magnitude exceeds this are treated as divergence (MuJoCo's mjMAXVAL).
MAXVAL = 1e10
# Smallest mass or inertia allowed where the compiler has to divide by it (MuJoCo's mjMINVAL).
MINVAL = 1e-15


MODEL_FIELDS = """
# Sizes
nq                      int                   | number of generalized coordinates, dim(qpos)
nv                      int                   | number of degrees of freedom, dim(qvel)
nu                      int                   | number of actuators (scalar controls), dim(ctrl)
na                      int                   | number of activation states, dim(act)
nbody                   int                   | number of bodies, the world body included
njnt                    int                   | number of joints
ntree                   int                   | number of kinematic trees under the world body
nM                      int                   | number of non-zeros in the sparse inertia matrix qM
ngeom                   int                   | number of geoms
nsite                   int                   | number of sites
ncam                    int                   | number of cameras
nlight                  int                   | number of lights
nmesh                   int                   | number of meshes
nmeshvert               int                   | number of vertices in all meshes
nmeshface               int                   | number of triangular faces in all meshes
nmeshpoly               int                   | number of polygons in all meshes
nmeshpolyvert           int                   | number of vertices in all polygons
nmeshpolymap            int                   | number of entries in the vertex-to-polygon map
nmeshtexcoord           int                   | number of texture coordinates in all meshes
nskin                   int                   | number of skins
nskinvert               int                   | number of vertices in all skins
nskintexvert            int                   | number of texture coordinates in all skins
nskinface               int                   | number of triangular faces in all skins
nskinbone               int                   | number of bones in all skins
nskinbonevert           int                   | number of vertices in all skin bones
nflex                   int                   | number of flexes
nflexvert               int                   | number of vertices in all flexes
nflexedge               int                   | number of edges in all flexes
nflexelem               int                   | number of elements in all flexes
nflexelemdata           int                   | number of element vertex ids in all flexes
nflexelemedge           int                   | number of element edge ids in all flexes
nflexshelldata          int                   | number of shell fragment vertex ids in all flexes
nflextexcoord           int                   | number of texture coordinates in all flexes
nflexnode               int                   | number of interpolation nodes in all flexes (0: mjgym has no interpolated flexes)
nflexstiffness          int                   | number of elasticity stiffness values in all flexes
nflexbending            int                   | number of bending stiffness values in all flexes
nJfe                    int                   | number of non-zeros in the sparse flex edge Jacobian
nhfield                 int                   | number of height fields
nhfielddata             int                   | number of elevation samples in all height fields
ntex                    int                   | number of textures
ntexdata                int                   | number of bytes of texture pixels
nmat                    int                   | number of materials
npair                   int                   | number of predefined geom pairs
nexclude                int                   | number of excluded body pairs
neq                     int                   | number of equality constraints
ntendon                 int                   | number of tendons
nwrap                   int                   | number of wrap objects in all tendon paths
nsensor                 int                   | number of sensors
nkey                    int                   | number of keyframes
nmocap                  int                   | number of mocap bodies
njmax                   int                   | number of constraint rows Data holds
nconmax                 int                   | number of contacts Data holds
nsensordata             int                   | number of values in sensordata
nhistory                int                   | number of values in the history buffers of delayed actuators and sensors
nmeshhull               int                   | number of convex-hull vertices in all meshes (mjgym)
nmeshhullface           int                   | number of convex-hull faces in all meshes (mjgym)
narmax                  int                   | rows of efc_AR Data holds; larger problems recompute AR rows (mjgym)

# Options (mjOption; one-element arrays)
opt_timestep            float  1              | simulation time step (s)
opt_impratio            float  1              | ratio of frictional to normal constraint impedance (elliptic cones)
opt_tolerance           float  1              | main solver tolerance on the scaled improvement and gradient
opt_ls_tolerance        float  1              | CG/Newton line-search tolerance, relative to opt_tolerance
opt_noslip_tolerance    float  1              | noslip solver tolerance
opt_ccd_tolerance       float  1              | convex collision (GJK/EPA) tolerance (m)
opt_gravity             float  3              | gravitational acceleration (m/s²)
opt_wind                float  3              | wind velocity, for fluid forces (m/s)
opt_magnetic            float  3              | global magnetic flux, for magnetometers
opt_density             float  1              | density of the medium (kg/m³)
opt_viscosity           float  1              | viscosity of the medium (Pa·s)
opt_o_margin            float  1              | contact margin under the override flag (m)
opt_o_solref            float  2              | contact solref under the override flag
opt_o_solimp            float  5              | contact solimp under the override flag
opt_o_friction          float  5              | contact friction under the override flag
opt_integrator          int    1              | integrator (IntegratorType)
opt_cone                int    1              | friction cone (ConeType)
opt_jacobian            int    1              | constraint Jacobian layout asked for (JacobianType); mjgym's are dense
opt_solver              int    1              | constraint solver (SolverType)
opt_iterations          int    1              | most main solver iterations
opt_ls_iterations       int    1              | most CG/Newton line-search evaluations
opt_noslip_iterations   int    1              | most noslip iterations; 0: no noslip
opt_ccd_iterations      int    1              | most convex collision iterations
opt_disableflags        int    1              | disabled standard features (DisableBit flags)
opt_disableactuator     int    1              | bitmask of the actuator groups (0-30) whose forces are off (actuatorgroupdisable)
opt_enableflags         int    1              | enabled optional features (EnableBit flags)

# Visual (mjVisual; one-element arrays)
vis_global_fovy         float  1              | vertical field of view of the free camera (degrees)
vis_global_azimuth      float  1              | initial azimuth of the free camera (degrees)
vis_global_elevation    float  1              | initial elevation of the free camera (degrees)
vis_quality_shadowsize  int    1              | size of the shadow map texture (pixels)
vis_quality_offsamples  int    1              | multisamples for offscreen rendering
vis_headlight_ambient   float  3              | headlight ambient rgb
vis_headlight_diffuse   float  3              | headlight diffuse rgb
vis_headlight_specular  float  3              | headlight specular rgb
vis_headlight_active    int    1              | whether the headlight is on
vis_map_znear           float  1              | near clipping plane, in units of stat_extent
vis_map_zfar            float  1              | far clipping plane, in units of stat_extent
vis_map_haze            float  1              | haze ratio
vis_map_shadowclip      float  1              | directional light shadow clipping, in units of stat_extent
vis_rgba_haze           float  4              | haze color (rgba)

# Statistics (mjStatistic, at qpos0)
stat_meaninertia        float  1              | mean diagonal of the inertia matrix (kg·m²)
stat_meanmass           float  1              | mean body mass (kg)
stat_meansize           float  1              | mean body size (m)
stat_extent             float  1              | spatial extent of the model (m)
stat_center             float  3              | center of the model (m)

# Default pose
qpos0                   float  nq             | qpos at the default pose (m, rad; quaternions w, x, y, z)
qpos_spring             float  nq             | reference pose of joint springs

# Bodies
body_parentid           int    nbody          | id of the body's parent
body_rootid             int    nbody          | id of the body's ancestor that is a child of the world
body_weldid             int    nbody          | top ancestor reached without crossing a dof (itself if it has dofs)
body_mocapid            int    nbody          | id of the body's mocap data; -1: not a mocap body
body_jntnum             int    nbody          | number of joints of the body
body_jntadr             int    nbody          | id of the body's first joint; -1: none
body_dofnum             int    nbody          | number of dofs of the body
body_dofadr             int    nbody          | address of the body's first dof; -1: none
body_treeid             int    nbody          | id of the body's kinematic tree; -1: static
body_geomnum            int    nbody          | number of geoms of the body
body_geomadr            int    nbody          | id of the body's first geom; -1: none
body_simple             int    nbody          | 1: its mass matrix block is diagonal; 2: also moved by slide joints only
body_sameframe          int    nbody          | which body frame the inertia frame coincides with (SameFrame)
body_pos                float  nbody 3        | position relative to the parent body (m)
body_quat               float  nbody 4        | orientation relative to the parent body (w, x, y, z)
body_ipos               float  nbody 3        | center of mass in the body frame (m)
body_iquat              float  nbody 4        | orientation of the inertia frame in the body frame
body_mass               float  nbody          | mass (kg)
body_subtreemass        float  nbody          | mass of the subtree rooted at the body (kg)
body_inertia            float  nbody 3        | diagonal inertia in the inertia frame (kg·m²)
body_invweight0         float  nbody 2        | mean inverse inertia at qpos0: translation (1/kg), rotation (1/(kg·m²))
body_gravcomp           float  nbody          | gravity compensation, a fraction of the body's weight

# Joints
jnt_type                int    njnt           | joint type (JointType)
jnt_qposadr             int    njnt           | address of the joint's coordinates in qpos
jnt_dofadr              int    njnt           | address of the joint's dofs in qvel
jnt_bodyid              int    njnt           | id of the joint's body
jnt_group               int    njnt           | visibility group
jnt_limited             int    njnt           | whether the joint has limits
jnt_actfrclimited       int    njnt           | whether the total actuator force on the joint is clamped
jnt_actgravcomp         int    njnt           | whether gravity compensation goes through qfrc_actuator
jnt_actuatorid          int    njnt           | the actuator whose damping and armature the joint takes; -1: none, -2: several
jnt_solref              float  njnt 2         | solref of the limit
jnt_solimp              float  njnt 5         | solimp of the limit
jnt_pos                 float  njnt 3         | anchor position in the body frame (m)
jnt_axis                float  njnt 3         | joint axis in the body frame (unit)
jnt_stiffness           float  njnt           | spring stiffness (N/m or N·m/rad)
jnt_range               float  njnt 2         | joint limits (m or rad)
jnt_actfrcrange         float  njnt 2         | range of the total actuator force (N or N·m)
jnt_margin              float  njnt           | distance from a limit at which its row is made (m or rad)

# Dofs
dof_bodyid              int    nv             | id of the dof's body
dof_jntid               int    nv             | id of the dof's joint
dof_parentid            int    nv             | id of the dof's parent dof; -1: none
dof_treeid              int    nv             | id of the dof's kinematic tree
dof_Madr                int    nv             | address of the dof's diagonal entry in qM
dof_solref              float  nv 2           | solref of the friction loss
dof_solimp              float  nv 5           | solimp of the friction loss
dof_frictionloss        float  nv             | dry friction (N or N·m)
dof_armature            float  nv             | armature inertia added to M's diagonal (kg or kg·m²)
dof_damping             float  nv             | damping coefficient (N·s/m or N·m·s/rad)
dof_invweight0          float  nv             | diagonal of the inverse inertia at qpos0

# Trees
tree_dofadr             int    ntree          | address of the tree's first dof
tree_dofnum             int    ntree          | number of dofs of the tree

# Geoms
geom_type               int    ngeom          | geometric type (GeomType)
geom_contype            int    ngeom          | contact type bits
geom_conaffinity        int    ngeom          | contact affinity bits
geom_condim             int    ngeom          | contact dimensionality: 1, 3, 4 or 6
geom_bodyid             int    ngeom          | id of the geom's body
geom_dataid             int    ngeom          | id of the geom's mesh or height field; -1: none
geom_matid              int    ngeom          | id of the geom's material; -1: none
geom_group              int    ngeom          | visibility group
geom_priority           int    ngeom          | contact priority
geom_sameframe          int    ngeom          | which body frame the geom frame coincides with (SameFrame)
geom_solmix             float  ngeom          | weight of the geom's solref / solimp in a pair
geom_solref             float  ngeom 2        | contact solref
geom_solimp             float  ngeom 5        | contact solimp
geom_size               float  ngeom 3        | type-specific size parameters (m)
geom_aabb               float  ngeom 6        | bounding box in the geom frame: center, half sizes (m)
geom_rbound             float  ngeom          | radius of the bounding sphere (m)
geom_pos                float  ngeom 3        | position in the body frame (m)
geom_quat               float  ngeom 4        | orientation in the body frame
geom_friction           float  ngeom 3        | friction: sliding, torsional, rolling
geom_margin             float  ngeom          | distance within which contacts are detected (m)
geom_gap                float  ngeom          | contacts farther than margin - gap are detected but make no force (m)
geom_rgba               float  ngeom 4        | color when no material is given
geom_fluid              float  ngeom 12       | ellipsoid fluid model: on (0/1), blunt, slender, angular drag, Kutta and Magnus lift coefficients, virtual mass (3), virtual inertia (3)

# Sites
site_type               int    nsite          | geom type for rendering (GeomType)
site_bodyid             int    nsite          | id of the site's body
site_matid              int    nsite          | id of the site's material; -1: none
site_group              int    nsite          | visibility group
site_sameframe          int    nsite          | which body frame the site frame coincides with (SameFrame)
site_size               float  nsite 3        | geom size for rendering (m)
site_pos                float  nsite 3        | position in the body frame (m)
site_quat               float  nsite 4        | orientation in the body frame
site_rgba               float  nsite 4        | color when no material is given

# Cameras
cam_mode                int    ncam           | tracking mode (CamLightType)
cam_bodyid              int    ncam           | id of the camera's body
cam_targetbodyid        int    ncam           | id of the targeted body; -1: none
cam_pos                 float  ncam 3         | position in the body frame (m)
cam_quat                float  ncam 4         | orientation in the body frame
cam_poscom0             float  ncam 3         | position relative to the subtree com at qpos0 (m)
cam_pos0                float  ncam 3         | position relative to the body at qpos0 (m)
cam_mat0                float  ncam 9         | orientation at qpos0, row-major 3×3
cam_fovy                float  ncam           | vertical field of view (degrees)
cam_ipd                 float  ncam           | inter-pupillary distance (m)

# Lights
light_mode              int    nlight         | tracking mode (CamLightType)
light_bodyid            int    nlight         | id of the light's body
light_targetbodyid      int    nlight         | id of the targeted body; -1: none
light_type              int    nlight         | light type (LightType)
light_castshadow        int    nlight         | whether the light casts shadows
light_active            int    nlight         | whether the light is on
light_pos               float  nlight 3       | position in the body frame (m)
light_dir               float  nlight 3       | direction in the body frame (unit)
light_poscom0           float  nlight 3       | position relative to the subtree com at qpos0 (m)
light_pos0              float  nlight 3       | position relative to the body at qpos0 (m)
light_dir0              float  nlight 3       | direction at qpos0 (unit)
light_attenuation       float  nlight 3       | attenuation: constant, linear, quadratic
light_cutoff            float  nlight         | spotlight cutoff angle (degrees)
light_exponent          float  nlight         | spotlight exponent
light_ambient           float  nlight 3       | ambient rgb
light_diffuse           float  nlight 3       | diffuse rgb
light_specular          float  nlight 3       | specular rgb

# Meshes
mesh_vertadr            int    nmesh          | address of the mesh's first vertex
mesh_vertnum            int    nmesh          | number of vertices of the mesh
mesh_faceadr            int    nmesh          | address of the mesh's first face
mesh_facenum            int    nmesh          | number of faces of the mesh
mesh_vert               float  nmeshvert 3    | vertex positions in the mesh frame (m)
mesh_face               int    nmeshface 3    | vertex indices of each triangle, relative to the mesh's first vertex
mesh_polynum            int    nmesh          | number of polygons of the mesh
mesh_polyadr            int    nmesh          | address of the mesh's first polygon
mesh_polynormal         float  nmeshpoly 3    | polygon normals in the mesh frame (unit)
mesh_polyvertadr        int    nmeshpoly      | address of the polygon's first vertex in mesh_polyvert
mesh_polyvertnum        int    nmeshpoly      | number of vertices of the polygon
mesh_polyvert           int    nmeshpolyvert  | vertex indices of all polygons, relative to the mesh's first vertex
mesh_polymapadr         int    nmeshvert      | address of the vertex's first polygon in mesh_polymap
mesh_polymapnum         int    nmeshvert      | number of polygons at the vertex
mesh_polymap            int    nmeshpolymap   | polygons at each vertex
mesh_texcoordadr        int    nmesh          | address of the mesh's first texture coordinate; -1: none
mesh_texcoordnum        int    nmesh          | number of texture coordinates of the mesh
mesh_texcoord           float  nmeshtexcoord 2| texture coordinates (u, v), v down the image
mesh_facetexcoord       int    nmeshface 3    | texture coordinate of each triangle corner, relative to mesh_texcoordadr
mesh_hulladr            int    nmesh          | address of the mesh's first convex-hull vertex (mjgym)
mesh_hullnum            int    nmesh          | number of convex-hull vertices of the mesh (mjgym)
mesh_hullvert           float  nmeshhull 3    | convex-hull vertices in the mesh frame (m) (mjgym)
mesh_hullfaceadr        int    nmesh          | address of the mesh's first convex-hull face (mjgym)
mesh_hullfacenum        int    nmesh          | number of convex-hull faces of the mesh (mjgym)
mesh_hullface           int    nmeshhullface 3| convex-hull triangles, relative to the mesh's first hull vertex (mjgym)

# Skins (drawn only)
skin_matid              int    nskin          | material id; -1: none
skin_group              int    nskin          | group for visibility
skin_rgba               float  nskin 4        | rgba when no material
skin_inflate            float  nskin          | offset of the drawn surface along the vertex normals (m)
skin_vertadr            int    nskin          | address of the skin's first vertex
skin_vertnum            int    nskin          | number of vertices of the skin
skin_texcoordadr        int    nskin          | address of the skin's first texture coordinate; -1: none
skin_faceadr            int    nskin          | address of the skin's first face
skin_facenum            int    nskin          | number of faces of the skin
skin_boneadr            int    nskin          | address of the skin's first bone
skin_bonenum            int    nskin          | number of bones of the skin
skin_vert               float  nskinvert 3    | vertex positions in the bind pose (m)
skin_texcoord           float  nskintexvert 2 | texture coordinates (u, v) of the vertices
skin_face               int    nskinface 3    | vertex indices of each triangle, relative to the skin's first vertex
skin_bonevertadr        int    nskinbone      | address of the bone's first vertex in skin_bonevertid
skin_bonevertnum        int    nskinbone      | number of vertices the bone moves
skin_bonebindpos        float  nskinbone 3    | bone position in the bind pose (m)
skin_bonebindquat       float  nskinbone 4    | bone orientation in the bind pose (unit)
skin_bonebodyid         int    nskinbone      | body of the bone
skin_bonevertid         int    nskinbonevert  | vertex ids, relative to the skin's first vertex
skin_bonevertweight     float  nskinbonevert  | vertex weights, summing to 1 over the bones at a vertex

# Flexes (deformable objects made of vertices, each moved by a body)
flex_contype            int    nflex          | contact type
flex_conaffinity        int    nflex          | contact affinity
flex_condim             int    nflex          | contact dimensionality (1, 3, 4, 6)
flex_priority           int    nflex          | contact priority
flex_solmix             float  nflex          | solver mixing for contact pairs
flex_solref             float  nflex 2        | contact solref
flex_solimp             float  nflex 5        | contact solimp
flex_friction           float  nflex 3        | contact friction (slide, spin, roll)
flex_margin             float  nflex          | contact margin (m)
flex_gap                float  nflex          | contact gap (m)
flex_selfcollide        int    nflex          | self-collision mode (FlexSelf)
flex_activelayers       int    nflex          | number of active element layers (3-D)
flex_passive            int    nflex          | whether passive contacts are generated
flex_dim                int    nflex          | 1: lines, 2: triangles, 3: tetrahedra
flex_vertadr            int    nflex          | address of the flex's first vertex
flex_vertnum            int    nflex          | number of vertices of the flex
flex_edgeadr            int    nflex          | address of the flex's first edge
flex_edgenum            int    nflex          | number of edges of the flex
flex_elemadr            int    nflex          | address of the flex's first element
flex_elemnum            int    nflex          | number of elements of the flex
flex_elemdataadr        int    nflex          | address of the flex's first element vertex id in flex_elem
flex_elemedgeadr        int    nflex          | address of the flex's first element edge id in flex_elemedge
flex_shellnum           int    nflex          | number of shell fragments of the flex
flex_shelldataadr       int    nflex          | address of the flex's first shell vertex id; -1: none
flex_vertbodyid         int    nflexvert      | body that moves each vertex
flex_edge               int    nflexedge 2    | vertex ids of each edge, relative to the flex's first vertex
flex_edgeflap           int    nflexedge 2    | the two vertices opposite each edge (2-D bending); -1: none
flex_elem               int    nflexelemdata  | vertex ids of each element, relative to the flex's first vertex
flex_elemedge           int    nflexelemedge  | edge ids of each element, relative to the flex's first edge
flex_elemlayer          int    nflexelem      | distance of each element from the border, in elements (3-D)
flex_shell              int    nflexshelldata | vertex ids of the border fragments, relative to the flex's first vertex
flex_vert               float  nflexvert 3    | vertex positions in their body's frame (m)
flex_vert0              float  nflexvert 3    | vertex positions at qpos0, in the flex's bounding box scaled to [0, 1]
flex_radius             float  nflex          | radius around the elements (m)
flex_size               float  nflex 3        | half sizes of the bounding box at qpos0, radius left out (m)
flex_edgestiffness      float  nflex          | edge stiffness (1-D flexes) (N/m)
flex_edgedamping        float  nflex          | edge damping (N·s/m)
flex_damping            float  nflex          | elastic damping
flex_stiffnessadr       int    nflex          | address of the flex's element stiffness in flex_stiffness; -1: none
flex_bendingadr         int    nflex          | address of the flex's edge bending data in flex_bending; -1: none
flex_stiffness          float  nflexstiffness | per element, the upper triangle of the edge metric (21 values; 24 for dim 3)
flex_bending            float  nflexbending   | per edge, the 4x4 bending matrix of its flap and the curved-reference factor (17)
flex_edgeequality       int    nflex          | 0: none, 1: edge equality constraints, 2: vertex, 3: strain
flex_rigid              u8     nflex          | whether all vertices are in one body
flex_centered           u8     nflex          | whether every vertex is at its body's origin
flex_flatskin           u8     nflex          | whether the skin is drawn flat-shaded
flex_interp             int    nflex          | interpolation order (0: none)
flex_group              int    nflex          | group for visibility
flex_rgba               float  nflex 4        | rgba when no material
flex_matid              int    nflexelem      | material of each element (its flex's); -1: none
flex_texcoordadr        int    nflex          | address of the flex's first texture coordinate; -1: none
flex_texcoord           float  nflextexcoord 2 | texture coordinates (u, v), single-precision values
flex_elemtexcoord       int    nflexelemdata  | texture coordinate ids of each element's vertices (flex_elem without texture)
flex_nodeadr            int    nflex          | address of the flex's first interpolation node
flex_nodenum            int    nflex          | number of interpolation nodes of the flex
flex_node               float  nflexnode 3    | interpolation node positions in their body's frame (m)
flex_node0              float  nflexnode 3    | interpolation node positions at qpos0 (m)
flex_nodebodyid         int    nflexnode      | body that moves each interpolation node
flex_cellnum            int    nflex 3        | interpolation cells along x, y, z (1 1 1 without interpolation)
flex_vertcell           int    nflexvert      | interpolation cell of each vertex; -1: none
flexedge_J_rownnz       int    nflexedge      | non-zeros in each row of the sparse edge Jacobian
flexedge_J_rowadr       int    nflexedge      | address of each row of the sparse edge Jacobian
flexedge_J_colind       int    nJfe           | dof of each non-zero of the sparse edge Jacobian
flexedge_length0        float  nflexedge      | edge lengths at qpos0 (m)
flexedge_invweight0     float  nflexedge      | inverse weight of each edge at qpos0, for constraint scaling
flexedge_rigid          u8     nflexedge      | whether both vertices of the edge are in one welded body

# Height fields
hfield_size             float  nhfield 4      | x and y half extents, height of the top, depth of the base (m)
hfield_nrow             int    nhfield        | number of rows of the grid
hfield_ncol             int    nhfield        | number of columns of the grid
hfield_adr              int    nhfield        | address of the height field's first sample in hfield_data
hfield_data             float  nhfielddata    | elevations in 0..1 (times the top height), row 0 at -y

# Textures
tex_type                int    ntex           | texture type: 2d, cube or skybox
tex_colorspace          int    ntex           | color space of the pixels
tex_height              int    ntex           | rows of the texture image
tex_width               int    ntex           | columns of the texture image
tex_nchannel            int    ntex           | channels of the texture image
tex_adr                 int    ntex           | address of the texture's first byte in tex_data
tex_data                u8     ntexdata       | pixel values
tex_builtin             int    ntex           | builtin pattern the texture was made from; 0: an image (mjgym)
tex_mark                int    ntex           | marks of the builtin pattern (mjgym)
tex_rgb1                float  ntex 3         | first color of the builtin pattern (mjgym)
tex_rgb2                float  ntex 3         | second color of the builtin pattern (mjgym)
tex_markrgb             float  ntex 3         | color of the marks (mjgym)
tex_random              float  ntex           | probability of a random dot, for the random mark (mjgym)

# Materials
mat_texid               int    nmat           | id of the material's texture; -1: none
mat_texuniform          int    nmat           | whether a cube texture is mapped uniformly
mat_texrepeat           float  nmat 2         | texture repetitions for 2d mapping
mat_emission            float  nmat           | emission, times the color
mat_specular            float  nmat           | specular, times white
mat_shininess           float  nmat           | shininess
mat_reflectance         float  nmat           | reflectance; 0: none
mat_rgba                float  nmat 4         | color

# Geom pairs
pair_dim                int    npair          | contact dimensionality
pair_geom1              int    npair          | id of geom 1
pair_geom2              int    npair          | id of geom 2
pair_signature          int    npair          | body1 << 16 + body2
pair_solref             float  npair 2        | solref of the contact normal
pair_solreffriction     float  npair 2        | solref of the contact friction
pair_solimp             float  npair 5        | solimp of the contact
pair_margin             float  npair          | detection margin (m)
pair_gap                float  npair          | inactive part of the margin (m)
pair_friction           float  npair 5        | friction: tangent 1, 2, spin, roll 1, 2

# Excluded body pairs
exclude_signature       int    nexclude       | body1 << 16 + body2

# Equality constraints
eq_type                 int    neq            | constraint type (EqType)
eq_obj1id               int    neq            | id of object 1
eq_obj2id               int    neq            | id of object 2; -1: none
eq_objtype              int    neq            | type of both objects (ObjType)
eq_active0              int    neq            | whether the constraint is on at reset
eq_solref               float  neq 2          | solref
eq_solimp               float  neq 5          | solimp
eq_data                 float  neq 12         | numeric data: anchors, relative pose, polynomial, torque scale

# Tendons
tendon_adr              int    ntendon        | address of the tendon's first wrap object
tendon_num              int    ntendon        | number of wrap objects in the tendon's path
tendon_matid            int    ntendon        | id of the tendon's material; -1: none
tendon_group            int    ntendon        | visibility group
tendon_limited          int    ntendon        | whether the tendon has length limits
tendon_actfrclimited    int    ntendon        | whether the total force of the tendon's actuators is limited
tendon_actuatorid       int    ntendon        | the actuator whose damping the tendon takes; -1: none, -2: several
tendon_width            float  ntendon        | width for rendering (m)
tendon_solref_lim       float  ntendon 2      | solref of the limit
tendon_solimp_lim       float  ntendon 5      | solimp of the limit
tendon_solref_fri       float  ntendon 2      | solref of the friction loss
tendon_solimp_fri       float  ntendon 5      | solimp of the friction loss
tendon_range            float  ntendon 2      | length limits (m)
tendon_margin           float  ntendon        | distance from a limit at which its row is made (m)
tendon_stiffness        float  ntendon        | spring stiffness (N/m)
tendon_damping          float  ntendon        | damping coefficient (N·s/m)
tendon_armature         float  ntendon        | inertia added to M as armature ten_J'ten_J, on M's sparsity (kg)
tendon_frictionloss     float  ntendon        | dry friction (N)
tendon_lengthspring     float  ntendon 2      | rest length range of the spring (m)
tendon_actfrcrange      float  ntendon 2      | range of the total force of the tendon's actuators (N)
tendon_length0          float  ntendon        | length at qpos0 (m)
tendon_invweight0       float  ntendon        | inverse inertia at qpos0
tendon_rgba             float  ntendon 4      | color when no material is given

# Tendon wrap objects
wrap_type               int    nwrap          | wrap object type (WrapType)
wrap_objid              int    nwrap          | id of the object: joint, site or geom
wrap_prm                float  nwrap          | pulley divisor, joint coefficient or side site id

# Actuators
actuator_trntype        int    nu             | transmission type (TrnType)
actuator_dyntype        int    nu             | activation dynamics type (DynType)
actuator_gaintype       int    nu             | gain type (GainType)
actuator_biastype       int    nu             | bias type (BiasType)
actuator_actadr         int    nu             | address of the actuator's activation in act; -1: stateless
actuator_actnum         int    nu             | number of activation variables
actuator_trnid          int    nu 2           | transmission target (joint, tendon, site or body) and reference site ids
actuator_cranklength    float  nu             | crank length of a slider-crank (m)
actuator_dynprm         float  nu 10          | activation dynamics parameters
actuator_gainprm        float  nu 10          | gain parameters
actuator_biasprm        float  nu 10          | bias parameters
actuator_actlimited     int    nu             | whether the activation is clamped
actuator_actrange       float  nu 2           | range of the activation
actuator_actearly       int    nu             | whether the force uses the next step's activation
actuator_group          int    nu             | visibility group
actuator_forcelimited   int    nu             | whether the force is clamped
actuator_forcerange     float  nu 2           | range of the force (N or N·m)
actuator_ctrllimited    int    nu             | whether the control is clamped
actuator_ctrlrange      float  nu 2           | range of the control
actuator_gear           float  nu 6           | transmission gear: scales length and force
actuator_damping        float  nu             | damping the actuator adds to its joint or tendon, times gear² (N·s/m or N·m·s/rad)
actuator_armature       float  nu             | armature inertia the actuator adds to its joint, times gear² (kg or kg·m²)
actuator_acc0           float  nu             | norm of the acceleration a unit actuator force causes at qpos0
actuator_length0        float  nu             | length at qpos0 (m or rad)
actuator_lengthrange    float  nu 2           | feasible length range (m or rad)
actuator_history        int    nu 2           | history buffer: number of samples, interpolation (0 hold, 1 linear, 2 cubic)
actuator_historyadr     int    nu             | address of the actuator's buffer in history; -1: none
actuator_delay          float  nu             | delay of the control the force sees (s)

# Sensors
sensor_type             int    nsensor        | sensor type (SensorType)
sensor_datatype         int    nsensor        | numeric data type (DataType)
sensor_needstage        int    nsensor        | stage the sensor is computed in (Stage)
sensor_objtype          int    nsensor        | type of the sensed object (ObjType)
sensor_objid            int    nsensor        | id of the sensed object
sensor_reftype          int    nsensor        | type of the reference frame object (ObjType)
sensor_refid            int    nsensor        | id of the reference frame object; -1: the world frame
sensor_dim              int    nsensor        | number of values the sensor writes
sensor_adr              int    nsensor        | address of the sensor's values in sensordata
sensor_cutoff           float  nsensor        | clamp on the values; 0: none
sensor_noise            float  nsensor        | noise standard deviation (stored only, as in MuJoCo)
sensor_intprm           int    nsensor 3      | contact sensor: data fields (bit mask), reduction, slots; rangefinder: data fields
sensor_history          int    nsensor 2      | history buffer: number of samples, interpolation (0 hold, 1 linear, 2 cubic)
sensor_historyadr       int    nsensor        | address of the sensor's buffer in history; -1: none
sensor_delay            float  nsensor        | delay of the values in sensordata (s)
sensor_interval         float  nsensor 2      | sampling period and phase (s); period 0: every step

# Keyframes
key_time                float  nkey           | time (s)
key_qpos                float  nkey nq        | qpos
key_qvel                float  nkey nv        | qvel
key_act                 float  nkey na        | act
key_mpos                float  nkey nmocap 3  | mocap_pos (m)
key_mquat               float  nkey nmocap 4  | mocap_quat
key_ctrl                float  nkey nu        | ctrl
"""

DATA_FIELDS = """
# Solver statistics
solver_niter            int    20             | solver iterations of each island (the first NISLAND)
solver_improvement      float  200            | cost reduction at each iteration of island 0, scaled
solver_gradient         float  200            | gradient norm at each iteration of island 0, scaled (primal solvers)
solver_lineslope        float  200            | line-search slope at each iteration (not computed: zero)
solver_nactive          int    200            | active constraint rows at each iteration
solver_nchange          int    200            | constraint rows whose state changed at each iteration (dual solvers)
solver_neval            int    200            | cost evaluations in each iteration's line search

# Diagnostics
warning_number          int    7              | how many times each warning (Warning) was raised
warning_lastinfo        int    7              | information of the last warning of each kind, e.g. the offending dof

# Variable sizes
ncon                    int    1              | number of detected contacts
ne                      int    1              | number of equality constraint rows
nf                      int    1              | number of friction-loss rows
nl                      int    1              | number of limit rows
nefc                    int    1              | number of constraint rows
nisland                 int    1              | number of constraint islands; 0: one problem over all rows
nidof                   int    1              | number of dofs in all islands

# Global properties
time                    float  1              | simulation time (s)
energy                  float  2              | potential and kinetic energy (J), when enabled

# State
qpos                    float  nq             | position (m, rad; quaternions w, x, y, z)
qvel                    float  nv             | velocity (m/s, rad/s)
act                     float  na             | actuator activation
qacc_warmstart          float  nv             | last step's acceleration, the solvers' warm start

# Control
ctrl                    float  nu             | control of each actuator
qfrc_applied            float  nv             | applied generalized force (N or N·m)
xfrc_applied            float  nbody 6        | applied force (N) and torque (N·m) at each body's com, world frame
eq_active               u8     neq            | whether each equality constraint is on

# Mocap
mocap_pos               float  nmocap 3       | positions of the mocap bodies (m)
mocap_quat              float  nmocap 4       | orientations of the mocap bodies

# Dynamics
qacc                    float  nv             | acceleration (m/s², rad/s²)
act_dot                 float  na             | time derivative of the activation

# Sensors
sensordata              float  nsensordata    | sensor values, sensor i's from sensor_adr[i]

# History buffers
history                 float  nhistory       | delayed actuators' controls and sensors' values: per buffer [last sample time, cursor, times, values]

# Position dependent: kinematics
xpos                    float  nbody 3        | position of each body frame (m)
xquat                   float  nbody 4        | orientation of each body frame
xmat                    float  nbody 9        | orientation of each body frame, row-major 3×3
xipos                   float  nbody 3        | position of each body's center of mass (m)
ximat                   float  nbody 9        | orientation of each body's inertia frame, row-major 3×3
xanchor                 float  njnt 3         | position of each joint anchor (m)
xaxis                   float  njnt 3         | direction of each joint axis (unit)
geom_xpos               float  ngeom 3        | position of each geom (m)
geom_xmat               float  ngeom 9        | orientation of each geom, row-major 3×3
site_xpos               float  nsite 3        | position of each site (m)
site_xmat               float  nsite 9        | orientation of each site, row-major 3×3
cam_xpos                float  ncam 3         | position of each camera (m)
cam_xmat                float  ncam 9         | orientation of each camera, row-major 3×3
light_xpos              float  nlight 3       | position of each light (m)
light_xdir              float  nlight 3       | direction of each light (unit)

# Position dependent: flexes
flexvert_xpos           float  nflexvert 3    | position of each flex vertex (m)
flexedge_J              float  nJfe           | sparse Jacobian of each flex edge length (rows in flexedge_J_rowadr)
flexedge_length         float  nflexedge      | length of each flex edge (m)

# Position dependent: com-based quantities
subtree_com             float  nbody 3        | center of mass of each body's subtree (m)
cdof                    float  nv 6           | com-based motion axis of each dof (rotation, translation)
cinert                  float  nbody 10       | com-based inertia: (xx, yy, zz, xy, xz, yz), mass·com offset, mass

# Position dependent: tendons
ten_wrapadr             int    ntendon        | address of the tendon's first path point in wrap_obj and wrap_xpos
ten_wrapnum             int    ntendon        | number of path points of the tendon
ten_J                   float  ntendon nv     | tendon Jacobian, dense: ten_velocity = ten_J qvel
ten_length              float  ntendon        | tendon lengths (m)
wrap_obj                int    nwrap 2        | object of each path point: geom id; -1: site; -2: pulley
wrap_xpos               float  nwrap 6        | path points, two per wrap object (m)

# Position dependent: transmission
actuator_length         float  nu             | actuator lengths (m or rad)
actuator_moment         float  nu nv          | actuator moment arms, dense: actuator_velocity = actuator_moment qvel

# Position dependent: inertia
crb                     float  nbody 10       | com-based composite inertia of each subtree, laid out as cinert
qM                      float  nM             | joint-space inertia matrix, sparse (dof_Madr, dof_parentid)
qLD                     float  nM             | L'DL factorization of qM, in qM's layout
qLDiagInv               float  nv             | 1 / diag(D) of qLD

# Velocity dependent
ten_velocity            float  ntendon        | tendon velocities (m/s)
actuator_velocity       float  nu             | actuator velocities (m/s or rad/s)
cvel                    float  nbody 6        | com-based velocity of each body (rotation, translation)
cdof_dot                float  nv 6           | time derivative of cdof
qfrc_bias               float  nv             | Coriolis, centrifugal and gravity force C(qpos, qvel) (N or N·m)
qfrc_spring             float  nv             | passive spring force (N or N·m)
qfrc_damper             float  nv             | passive damper force (N or N·m)
qfrc_gravcomp           float  nv             | gravity compensation force (N or N·m)
qfrc_fluid              float  nv             | fluid drag force (N or N·m)
qfrc_passive            float  nv             | total passive force (N or N·m)
subtree_linvel          float  nbody 3        | linear velocity of each subtree's com (m/s)
subtree_angmom          float  nbody 3        | angular momentum of each subtree about its com (kg·m²/s)
flexedge_velocity       float  nflexedge      | rate of change of each flex edge length (m/s)

# Integrators
qH                      float  nM             | L'DL factorization of qM + h diag(dof_damping), in qM's layout (Euler)
qHDiagInv               float  nv             | 1 / diag(D) of qH (Euler)
qDeriv                  float  nv nv          | d (qfrc_passive + qfrc_actuator - qfrc_bias) / d qvel, dense (implicit)
qLU                     float  nv nv          | LU factors of qM - h qDeriv, dense (implicit integrators)
qLU_piv                 int    nv             | row pivots of qLU (mjgym)

# Acceleration dependent
actuator_force          float  nu             | actuator force in actuation space (N or N·m)
qfrc_actuator           float  nv             | actuator force in joint space (N or N·m)
qfrc_smooth             float  nv             | net unconstrained force: passive + actuator + applied - bias (N or N·m)
qacc_smooth             float  nv             | unconstrained acceleration, M⁻¹ qfrc_smooth
qfrc_constraint         float  nv             | constraint force in joint space, efc_Jᵀ efc_force (N or N·m)
cacc                    float  nbody 6        | com-based acceleration of each body (mj_rnePostConstraint)
cfrc_int                float  nbody 6        | com-based force of each body on its parent (mj_rnePostConstraint)
cfrc_ext                float  nbody 6        | com-based external force on each body (mj_rnePostConstraint)

# Contacts
contact_dist            float  nconmax        | distance between the nearest points; negative: penetration (m)
contact_pos             float  nconmax 3      | contact point, midway between the two surfaces (m)
contact_frame           float  nconmax 9      | contact frame, rows: normal from geom1 to geom2, two tangents
contact_includemargin   float  nconmax        | distance below which the contact makes force (m)
contact_friction        float  nconmax 5      | friction: tangent 1, 2, spin, roll 1, 2
contact_solref          float  nconmax 2      | solref of the normal direction
contact_solreffriction  float  nconmax 2      | solref of the friction directions; 0, 0: solref's
contact_solimp          float  nconmax 5      | solimp
contact_mu              float  nconmax        | friction coefficient of the regularized cone
contact_dim             int    nconmax        | contact space dimensionality: 1, 3, 4 or 6
contact_geom1           int    nconmax        | id of geom 1
contact_geom2           int    nconmax        | id of geom 2
contact_flex            int    nconmax 2      | flex ids of the two sides; -1: a geom (MuJoCo's contact.flex)
contact_elem            int    nconmax 2      | flex element ids of the two sides; -1: none (MuJoCo's contact.elem)
contact_vert            int    nconmax 2      | flex vertex ids (within the flex) of the two sides; -1: none
contact_exclude         int    nconmax        | 0: included; 1: excluded from the constraint rows
contact_efc_address     int    nconmax        | first efc row of the contact; -1: not included

# Constraints
efc_type                int    njmax          | row type (ConstraintType)
efc_id                  int    njmax          | id of the row's object: equality, dof, joint, tendon or contact
efc_J                   float  njmax nv       | constraint Jacobian, dense
efc_pos                 float  njmax          | constraint violation or contact distance (m or rad)
efc_margin              float  njmax          | inclusion margin of limits and contacts (m or rad)
efc_frictionloss        float  njmax          | friction loss of friction rows (N or N·m)
efc_diagA               float  njmax          | approximate diagonal of A = J M⁻¹ Jᵀ
efc_KBIP                float  njmax 4        | stiffness, damping, impedance and its derivative
efc_D                   float  njmax          | constraint mass, 1 / R
efc_R                   float  njmax          | regularizer, the inverse constraint mass

# Islands
tree_island             int    ntree          | island of each tree; -1: none
dof_island              int    nv             | island of each dof; -1: none
island_nv               int    ntree          | number of dofs of each island
island_idofadr          int    ntree          | address of each island's first dof in map_idof2dof
map_dof2idof            int    nv             | position of each dof in the island-sorted order
map_idof2dof            int    nv             | dof at each island-sorted position; from nidof on: dofs of no island
efc_island              int    njmax          | island of each row
island_ne               int    ntree          | number of equality rows of each island
island_nf               int    ntree          | number of friction-loss rows of each island
island_nefc             int    ntree          | number of rows of each island
island_iefcadr          int    ntree          | address of each island's first row in map_iefc2efc
map_efc2iefc            int    njmax          | position of each row in the island-sorted order
map_iefc2efc            int    njmax          | row at each position of the island-sorted order

# Dual solver matrices
efc_Y                   float  njmax nv       | whitened Jacobian Y = J L⁻ᵀ D^-½, from the factor of M (PGS, noslip)
efc_AR                  float  narmax narmax  | J M⁻¹ Jᵀ + diag(R) when nefc <= narmax (PGS, noslip)

# Constraint velocity
efc_vel                 float  njmax          | velocity in constraint space, J qvel
efc_aref                float  njmax          | reference acceleration of each row

# Constraint solution
efc_b                   float  njmax          | linear cost term, J qacc_smooth - aref
efc_jar                 float  njmax          | J qacc - aref at the current qacc (primal solvers, mj_inverse)
efc_state               int    njmax          | which piece of its cost each row is on (ConstraintState)
efc_force               float  njmax          | constraint force in constraint space (N or N·m)

# Scratch: smooth.py
rne_cacc                float  nbody 6        | body accelerations of the bias-force recursion (rne)
rne_cfrc                float  nbody 6        | body forces of the bias-force recursion (rne)

# Scratch: collision/driver.py
col_aabb                float  ngeom 6        | world box of each geom grown by its margin and gap: min, max xyz (m)
col_order               int    ngeom          | geoms sorted by the low x of col_aabb (sweep and prune)
col_buf                 int    ngeom          | merge buffer of the sort of col_order

# Scratch: collision/convex.py
col_vert                float  3 128 3        | GJK/EPA vertices: [0] on geom1, [1] on geom2, [2] their difference (m)
col_face                int    256 7          | EPA faces: three vertices, the three neighbours, dead flag
col_plane               float  256 4          | EPA face planes: unit normal, distance from the origin
col_edge                int    384 3          | EPA horizon edges (two vertices, the face beyond), the flood's stack

# Scratch: collision/box.py
box_clip                float  2 64 3         | the clipped incident face, ping-ponging between the two rows (m)

# Scratch: collision/multiccd.py
multiccd_feature        float  128 3          | corners of the two features: geom1's from slot 0, geom2's from 64 (m)
multiccd_clip           float  2 128 3        | the clipped feature, ping-ponging between the two rows (m)

# Scratch: collision/hfield.py
col_prism               float  6 3            | world corners of the height-field prism being collided (m)

# Scratch: constraint.py
constraint_jacp         float  3 nv           | translational Jacobian of a point pair
constraint_jacr         float  3 nv           | rotational Jacobian of a point pair
constraint_row          float  nv             | Jacobian of a pyramidal contact's normal, shared by its edges

# Scratch: support.py
support_wrench          float  6              | one contact's force and torque in its frame (cfrc_ext)

# Scratch: mjcf/setconst.py
setconst_jacp           float  3 nv           | translational Jacobian of a body's com (invweight0)
setconst_jacr           float  3 nv           | rotational Jacobian of a body's com (invweight0)

# Scratch: island.py
island_cursor           int    ntree          | dofs or rows placed so far in each island

# Scratch: passive.py
passive_jacp            float  3 nv           | translational Jacobian of a body's com (fluid derivative)
passive_jacr            float  3 nv           | rotational Jacobian of a body's com (fluid derivative)
passive_row             float  nv             | one row of Rᵀ J, a body-frame velocity per dof (fluid derivative)
passive_fluid_b         float  6 6            | d(local fluid torque, force) / d(local angular, linear velocity) of one geom (ellipsoid fluid derivative)

# Scratch: solver.py
efc_jv                  float  njmax          | J times the search direction (line search)
solver_H                float  nv nv          | Cholesky factor of the Newton Hessian
solver_Ma               float  nv             | M qacc at the current iterate (primal)
solver_grad             float  nv             | gradient of the cost at the current iterate (primal)
solver_Mgrad            float  nv             | preconditioned gradient: M⁻¹ grad (CG), H⁻¹ grad (Newton)
solver_search           float  nv             | search direction (primal)
solver_Mv               float  nv             | M times the search direction (primal)
solver_qfrc             float  nv             | Jᵀ efc_force at the current iterate (primal)
solver_grad_old         float  nv             | gradient at the previous iterate (CG)
solver_Mgrad_old        float  nv             | preconditioned gradient at the previous iterate (CG)
solver_dgrad            float  nv             | change of the gradient over the last iteration (CG)
solver_dMgrad           float  nv             | change of the preconditioned gradient over the last iteration (CG)
solver_hrow             float  1 nv           | direction of a rank-one term of an elliptic cone's Hessian (Newton)
solver_state_h          int    njmax          | efc_state of every row when the Newton Hessian was last built (primal)
solver_rows             int    njmax          | 0, 1, ..., nefc - 1: the dual sweeps' row list when there are no islands
solver_arinv            float  njmax          | 1 / diagonal of AR at each list position (dual)
solver_ardiag           float  njmax          | 1 / solver_arinv: the diagonal of AR the cost change uses, by list position (PGS)
solver_dinvsqrt         float  nv             | 1 / sqrt of the diagonal D of M's factor, for Y = J L⁻ᵀ D^-½ (dual)
solver_prev             float  njmax          | forces before the last momentum step, by list position (PGS)
solver_mom              float  njmax          | forces after the momentum step, by list position (PGS)
solver_arf              float  njmax          | AR times the warm-start forces (PGS)
solver_ARrow            float  njmax          | a row of AR, recomputed when efc_AR does not hold it (dual)
solver_state_old        int    njmax          | efc_state before a sweep, by list position (dual)
solver_blocks           int    njmax          | list position of each row block, in a shuffled visiting order (PGS)
solver_res              float  6              | residual b + AR f of the block's rows (dual)
solver_old              float  6              | the block's forces before its update (dual)
solver_ray              float  6              | the block's forces, the direction of its ray update (PGS)
solver_ARray            float  6              | AR times solver_ray (PGS)
solver_bc               float  6              | linear term of the friction subproblem (dual)
solver_dforce           float  6              | change of the block's forces (dual)
solver_fric             float  5              | friction forces the QCQP returns (dual)
solver_Ablock           float  6 6            | AR block of the current row or elliptic contact (PGS)
solver_Asub             float  6 6            | AR block the friction update works on; noslip's without R (dual)
solver_qcqp_A           float  5 5            | the QCQP's matrix scaled by the friction coefficients
solver_qcqp_b           float  5              | the QCQP's linear term scaled by the friction coefficients
solver_qcqp_L           float  5 5            | Cholesky factor of solver_qcqp_A plus λ I
solver_qcqp_dx          float  5              | (A + λ I)⁻¹ x, for the Newton step on the multiplier λ

# Scratch: history.py
history_fresh           float  nsensordata    | this state's values of the delayed sensors, inserted into history when the step advances
history_ctrl            float  nu             | the delayed actuators' controls at time - actuator_delay

# Scratch: forward.py
step1_valid             int    1              | 1 while mj_step1's stages describe the current state (an environment step starts from them)
integ_qfrc              float  nv             | qfrc_smooth + qfrc_constraint (Euler with implicit damping)
integ_qacc              float  nv             | acceleration that Euler with damping and implicit integrate
rk_qpos                 float  nq             | qpos at the start of an RK4 step
rk_qvel                 float  nv             | qvel at the start of an RK4 step
rk_act                  float  na             | act at the start of an RK4 step
rk_F                    float  4 nv2na        | derivative (qvel, qacc, act_dot) of each RK4 stage
rk_dX                   float  nv2na          | weighted sum of stage derivatives (RK4)
deriv_qvel              float  nv             | qvel with one component perturbed (bias force velocity derivative)
deriv_bias_plus         float  nv             | bias force at the velocity perturbed up
deriv_bias_minus        float  nv             | bias force at the velocity perturbed down
deriv_cvel              float  nbody 6        | cvel of the perturbed velocity
deriv_cdof_dot          float  nv 6           | cdof_dot of the perturbed velocity
deriv_cacc              float  nbody 6        | body accelerations of the perturbed bias force
deriv_cfrc              float  nbody 6        | body forces of the perturbed bias force
"""


class Field(typing.NamedTuple):
  """One row of a field table."""
  name: str
  dtype: str
  shape: tuple | None  # None for a scalar size
  meaning: str
  section: str


def parse_fields(table):
  """Rows of a field table as Fields, in table order."""
  fields = []
  section = ""
  for line in table.strip().splitlines():
    if line.startswith("#"):
      section = line[1:].strip()
      continue
    spec, _, meaning = line.partition("|")
    parts = spec.split()
    if not parts:
      continue
    name, dtype, *shape = parts
    shape = tuple(int(s) if s.isdigit() else s for s in shape) if shape else None
    fields.append(Field(name, dtype, shape, meaning.strip(), section))
  return fields


MODEL_TABLE = parse_fields(MODEL_FIELDS)
DATA_TABLE = parse_fields(DATA_FIELDS)
# The layout alone, which is all that arrays, structs and binary files depend on: editing a meaning changes none.
MODEL_ROWS = [(f.name, f.dtype, f.shape) for f in MODEL_TABLE]
DATA_ROWS = [(f.name, f.dtype, f.shape) for f in DATA_TABLE]
MODEL_SIZES = tuple(name for name, _, shape in MODEL_ROWS if shape is None)
