"""The MJCF elements and attributes we read, with the type and count of every attribute's values.

Each attribute spec is a short string:
  ``s``            a string
  ``f`` / ``i``    one float / int (``g``: a float MuJoCo stores in single precision, so that beyond float32's
                   range is too large); ``f3`` exactly three; ``f1-3`` one to three (missing ones keep defaults);
                   ``f*`` any number
  ``b``            ``true`` / ``false``;  ``auto`` is ``false`` / ``true`` / ``auto``
  ``e:a|b``        one of the listed words
  ``x``            MuJoCo has it, we do not: loading fails naming the feature
  ``v``            visual-only, accepted and not interpreted

Elements MuJoCo knows that we do not support are listed in ``UNSUPPORTED_ELEMENTS``; anything else unknown
is an error too, so no input is silently dropped.
"""

_ORIENT = {"quat": "f4", "axisangle": "f4", "euler": "f3", "xyaxes": "f6", "zaxis": "f3"}
# MuJoCo reads solref and solimp (and friction) partially: missing values keep the default (defaults._PARTIAL_BASE)
_SOLIMP = "f1-5"
_SOLREF = "f1-2"

JOINT = {
    "name": "s", "class": "s", "type": "e:free|ball|slide|hinge", "group": "i", "pos": "f3", "axis": "f3",
    "limited": "auto", "range": "f2", "ref": "f", "springref": "f", "stiffness": "f1-3", "damping": "f1-3",
    "armature": "f", "frictionloss": "f", "margin": "f", "solreflimit": _SOLREF, "solimplimit": _SOLIMP,
    "solreffriction": _SOLREF, "solimpfriction": _SOLIMP, "user": "v",
    "springdamper": "f2", "actuatorfrclimited": "auto", "actuatorfrcrange": "f2", "actuatorgravcomp": "b",
}

GEOM = {
    "name": "s", "class": "s", "type": "e:plane|hfield|sphere|capsule|ellipsoid|cylinder|box|mesh|sdf",
    "contype": "i", "conaffinity": "i", "condim": "i", "group": "i", "priority": "i", "size": "f1-3",
    "material": "s", "rgba": "g4", "friction": "f1-3", "mass": "f", "density": "f", "solmix": "f",
    "solref": _SOLREF, "solimp": _SOLIMP, "margin": "f", "gap": "f", "fromto": "f6", "pos": "f3", "mesh": "s",
    "user": "v", "hfield": "s", "shellinertia": "b", "fitscale": "f", "fluidshape": "e:none|ellipsoid",
    "fluidcoef": "f1-5",
    **_ORIENT,
}

SITE = {
    "name": "s", "class": "s", "type": "e:sphere|capsule|ellipsoid|cylinder|box", "group": "i",
    "pos": "f3", "material": "s", "rgba": "g4", "size": "f1-3", "fromto": "f6", "user": "v", **_ORIENT,
}

CAMERA = {
    "name": "s", "class": "s", "mode": "e:fixed|track|trackcom|targetbody|targetbodycom", "target": "s",
    "pos": "f3", "fovy": "f", "ipd": "f", "resolution": "v", "focal": "v", "focalpixel": "v",
    "principal": "v", "principalpixel": "v", "sensorsize": "v", "orthographic": "v", "user": "v", **_ORIENT,
}

LIGHT = {
    "name": "s", "class": "s", "mode": "e:fixed|track|trackcom|targetbody|targetbodycom", "target": "s",
    "directional": "b", "type": "e:spot|directional|point|image", "castshadow": "b", "active": "b",
    "pos": "f3", "dir": "f3", "attenuation": "g3", "cutoff": "g", "exponent": "g", "ambient": "g3",
    "diffuse": "g3", "specular": "g3", "bulbradius": "v", "intensity": "v", "range": "v", "texture": "v",
}

# History buffer interpolation (MuJoCo 4): zero-order hold, linear, cubic.
_INTERP = "e:zoh|linear|cubic"

_ACTUATOR_COMMON = {
    "name": "s", "class": "s", "group": "i", "ctrllimited": "auto", "forcelimited": "auto",
    "actlimited": "auto", "ctrlrange": "f2", "forcerange": "f2", "actrange": "f2", "lengthrange": "f2",
    "gear": "f1-6", "cranklength": "f", "joint": "s", "tendon": "s", "user": "v", "actdim": "i",
    "jointinparent": "s", "site": "s", "refsite": "s", "body": "s", "cranksite": "s", "slidersite": "s",
    # MuJoCo 4's control history: buffer size, interpolation, delay (history.py)
    "nsample": "i", "interp": _INTERP, "delay": "f", "damping": "f1-3", "armature": "f",
}

GENERAL = {**_ACTUATOR_COMMON, "dyntype": "e:none|integrator|filter|filterexact|muscle|user",
           "gaintype": "e:fixed|affine|muscle|user", "biastype": "e:none|affine|muscle|user",
           "dynprm": "f1-10", "gainprm": "f1-10", "biasprm": "f1-10", "actearly": "b"}
MOTOR = dict(_ACTUATOR_COMMON)
POSITION = {**_ACTUATOR_COMMON, "kp": "f", "kv": "f", "timeconst": "f", "dampratio": "f",
            "inheritrange": "f"}
VELOCITY = {**_ACTUATOR_COMMON, "kv": "f"}
INTVELOCITY = {**_ACTUATOR_COMMON, "kp": "f", "kv": "f", "dampratio": "f", "inheritrange": "f"}
DAMPER = {**_ACTUATOR_COMMON, "kv": "f"}
CYLINDER = {**_ACTUATOR_COMMON, "timeconst": "f", "area": "f", "diameter": "f", "bias": "f3"}
MUSCLE = {**_ACTUATOR_COMMON, "timeconst": "f2", "tausmooth": "f", "range": "f2", "force": "f", "scale": "f",
          "lmin": "f", "lmax": "f", "vmax": "f", "fpmax": "f", "fvmax": "f"}
ADHESION = {**_ACTUATOR_COMMON, "gain": "f"}
ACTUATORS = {"general": GENERAL, "motor": MOTOR, "position": POSITION, "velocity": VELOCITY,
             "intvelocity": INTVELOCITY, "damper": DAMPER, "cylinder": CYLINDER, "muscle": MUSCLE,
             "adhesion": ADHESION}

FIXED_TENDON = {
    "name": "s", "class": "s", "group": "i", "limited": "auto", "range": "f2", "solreflimit": _SOLREF,
    "solimplimit": _SOLIMP, "solreffriction": _SOLREF, "solimpfriction": _SOLIMP, "frictionloss": "f",
    "springlength": "f1-2", "stiffness": "f1-3", "damping": "f1-3", "margin": "f", "user": "v", "armature": "f",
    "actuatorfrclimited": "auto", "actuatorfrcrange": "f2",
}

# Sensors: common attributes, then the object each kind reads. MuJoCo 4's sampling attributes (delay, interval,
# nsample, interp: history.py) are not attributes of user sensors; the rangefinder's extra outputs are not modelled.
_SENSOR_SAMPLING = {"delay": "f", "interval": "f1-2", "nsample": "i", "interp": _INTERP}
_SENSOR_COMMON = {"name": "s", "noise": "f", "cutoff": "f", "user": "v"}
_FRAME_OBJ = "e:body|xbody|geom|site|camera"
_SENSOR_OBJECT = {"site": {"site": "s"}, "joint": {"joint": "s"}, "tendon": {"tendon": "s"},
                  "actuator": {"actuator": "s"}, "body": {"body": "s"}, "none": {},
                  "geompair": {"geom1": "s", "body1": "s", "geom2": "s", "body2": "s"},
                  "insidesite": {"objtype": _FRAME_OBJ, "objname": "s", "site": "s"},
                  "contact": {"geom1": "s", "body1": "s", "subtree1": "s", "site": "s", "geom2": "s", "body2": "s",
                              "subtree2": "s", "num": "i", "data": "s",
                              "reduce": "e:none|mindist|maxforce|netforce"},
                  "frame": {"objtype": _FRAME_OBJ, "objname": "s", "reftype": _FRAME_OBJ, "refname": "s"}}
# tag -> (object kind, sensor type name)
SENSOR_KINDS = {
    "touch": "site", "accelerometer": "site", "velocimeter": "site", "gyro": "site", "force": "site",
    "torque": "site", "magnetometer": "site", "rangefinder": "site", "jointpos": "joint", "jointvel": "joint",
    "tendonpos": "tendon", "tendonvel": "tendon", "actuatorpos": "actuator", "actuatorvel": "actuator",
    "actuatorfrc": "actuator", "jointactuatorfrc": "joint", "tendonactuatorfrc": "tendon", "ballquat": "joint",
    "ballangvel": "joint", "jointlimitpos": "joint", "jointlimitvel": "joint", "jointlimitfrc": "joint",
    "tendonlimitpos": "tendon", "tendonlimitvel": "tendon", "tendonlimitfrc": "tendon", "framepos": "frame",
    "framequat": "frame", "framexaxis": "frame", "frameyaxis": "frame", "framezaxis": "frame",
    "framelinvel": "frame", "frameangvel": "frame", "framelinacc": "frame", "frameangacc": "frame",
    "subtreecom": "body", "subtreelinvel": "body", "subtreeangmom": "body", "clock": "none",
    "distance": "geompair", "normal": "geompair", "fromto": "geompair", "insidesite": "insidesite",
    "e_potential": "none", "e_kinetic": "none", "contact": "contact",
}
SENSORS = {tag: {**_SENSOR_COMMON, **_SENSOR_SAMPLING, **_SENSOR_OBJECT[kind]}
           for tag, kind in SENSOR_KINDS.items()}
SENSORS["rangefinder"].update(camera="x", data="x")
SENSORS["user"] = {**_SENSOR_COMMON, "objtype": "s", "objname": "s", "datatype": "e:real|positive|axis|quaternion",
                   "needstage": "e:pos|vel|acc", "dim": "i"}

# only spatial tendons are drawn (MuJoCo's fixed tendons have no material, rgba or width)
SPATIAL_TENDON = {**FIXED_TENDON, "material": "s", "rgba": "g4", "width": "f"}

MESH = {"name": "s", "class": "s", "file": "s", "scale": "f3", "content_type": "v", "smoothnormal": "v",
        "maxhullvert": "i", "vertex": "g*", "face": "i*", "normal": "x", "texcoord": "g*", "refpos": "f3",
        "refquat": "f4", "inertia": "e:convex|exact|legacy|shell",
        "builtin": ("e:none|sphere|hemisphere|cone|supertorus|supersphere|wedge|plate|grid|box|cylinder|ellipsoid|"
                    "square|disc"),
        "params": "f*", "material": "v"}
HFIELD = {"name": "s", "file": "s", "content_type": "v", "nrow": "i", "ncol": "i", "size": "f4",
          "elevation": "g*"}
MATERIAL = {"name": "s", "class": "s", "texture": "s", "texrepeat": "f2", "texuniform": "b",
            "emission": "f", "specular": "f", "shininess": "f", "reflectance": "f", "metallic": "v",
            "roughness": "v", "rgba": "g4"}
TEXTURE = {"name": "s", "type": "e:2d|cube|skybox", "file": "s", "gridsize": "i2", "gridlayout": "s",
           "builtin": "e:none|gradient|checker|flat", "rgb1": "f3", "rgb2": "f3",
           "mark": "e:none|edge|cross|random", "markrgb": "f3", "random": "f", "width": "i", "height": "i",
           "hflip": "b", "vflip": "b", "content_type": "s", "fileright": "s", "fileleft": "s", "fileup": "s",
           "filedown": "s", "filefront": "s", "fileback": "s", "nchannel": "i", "colorspace": "e:auto|linear|sRGB"}

PAIR = {"name": "s", "class": "s", "geom1": "s", "geom2": "s", "condim": "i", "friction": "f1-5",
        "solref": _SOLREF, "solreffriction": _SOLREF, "solimp": _SOLIMP, "margin": "f", "gap": "f"}
EXCLUDE = {"name": "s", "body1": "s", "body2": "s"}
_EQ_COMMON = {"name": "s", "class": "s", "active": "b", "solref": _SOLREF, "solimp": _SOLIMP}
EQUALITY = {
    "connect": {**_EQ_COMMON, "body1": "s", "body2": "s", "site1": "s", "site2": "s", "anchor": "f3"},
    "weld": {**_EQ_COMMON, "body1": "s", "body2": "s", "site1": "s", "site2": "s", "anchor": "f3",
             "relpose": "f7", "torquescale": "f"},
    "joint": {**_EQ_COMMON, "joint1": "s", "joint2": "s", "polycoef": "f1-5"},
    "tendon": {**_EQ_COMMON, "tendon1": "s", "tendon2": "s", "polycoef": "f1-5"},
    "flex": {**_EQ_COMMON, "flex": "s"},
}

# Flexes (mjcf/flex.py). The contact options a flex collides with (shared by <flexcomp> and <flex>).
FLEX_CONTACT = {
    "contype": "i", "conaffinity": "i", "condim": "i", "priority": "i", "friction": "f1-3", "solmix": "f",
    "solref": _SOLREF, "solimp": _SOLIMP, "margin": "f", "gap": "f", "internal": "b",
    "selfcollide": "e:none|narrow|bvh|sap|auto", "activelayers": "i", "passive": "b", "vertcollide": "x",
}
# Elasticity (mjcf/flex_elastic.py): linear elements of dim 2 (membrane, bending) and dim 3; not plasticity (yield)
# nor the 1-D cables' torsion and cross-sections.
FLEX_ELASTICITY = {"young": "f", "poisson": "f", "damping": "f", "thickness": "f",
                   "elastic2d": "e:none|bend|stretch|both", "yield": "x", "shear": "x", "section": "x",
                   "sectionsize": "x"}
# <flexcomp> types: all (gmsh from ASCII files); dof 'full', 'radial' and '2d' (not the interpolated ones).
FLEXCOMP = {
    "name": "s", "type": "e:grid|box|cylinder|ellipsoid|square|disc|circle|mesh|gmsh|direct", "group": "i",
    "dim": "i", "dof": "s", "count": "i3", "cellcount": "x", "spacing": "f3", "radius": "f", "rigid": "b",
    "mass": "f", "inertiabox": "f", "scale": "f3", "file": "s", "point": "f*", "element": "i*", "texcoord": "f*",
    "material": "s", "rgba": "g4", "flatskin": "b", "pos": "f3", "origin": "f3", **_ORIENT,
}
FLEXCOMP_EDGE = {"equality": "e:false|true|vert|strain", "solref": _SOLREF, "solimp": _SOLIMP,
                 "stiffness": "f", "damping": "f"}
FLEX = {
    "name": "s", "group": "i", "dim": "i", "radius": "f", "material": "s", "rgba": "g4", "flatskin": "b",
    "body": "s", "vertex": "f*", "element": "i*", "texcoord": "f*", "elemtexcoord": "i*", "node": "x",
    "nodecoord": "x", "cellcount": "x", "dof": "x",
}
# What a default class may hold: element name -> attributes (``class`` itself is not allowed inside).
DEFAULTABLE = {"joint": JOINT, "geom": GEOM, "site": SITE, "camera": CAMERA, "light": LIGHT, "mesh": MESH,
               "material": MATERIAL, "pair": PAIR, "equality": _EQ_COMMON, "tendon": SPATIAL_TENDON,
               **ACTUATORS}

_COMPILER = {
    "angle": "e:degree|radian", "coordinate": "e:local|global", "eulerseq": "s",
    "inertiafromgeom": "e:false|true|auto", "autolimits": "b", "boundmass": "f", "boundinertia": "f",
    "settotalmass": "f", "meshdir": "s", "texturedir": "s", "assetdir": "s", "balanceinertia": "b",
    "inertiagrouprange": "i2", "strippath": "b", "usethread": "v", "convexhull": "v", "fitaabb": "b",
    "discardvisual": "b", "fusestatic": "b", "alignfree": "b", "saveinertial": "v",
}
_OPTION = {
    "timestep": "f", "impratio": "f", "tolerance": "f", "ls_tolerance": "f", "noslip_tolerance": "f",
    "gravity": "f3", "wind": "f3", "magnetic": "f3", "density": "f", "viscosity": "f", "o_margin": "f",
    "o_solref": _SOLREF, "o_solimp": _SOLIMP, "o_friction": "f1-5",
    "integrator": "e:Euler|RK4|implicit|implicitfast", "cone": "e:pyramidal|elliptic",
    "jacobian": "e:dense|sparse|auto", "solver": "e:PGS|CG|Newton", "iterations": "i",
    "ls_iterations": "i", "noslip_iterations": "i", "ccd_tolerance": "f", "ccd_iterations": "i",
    # SDF narrow-phase tuning: accepted, it does not change model numbers (no SDF geoms).
    "sdf_iterations": "v", "sdf_initpoints": "v",
    "sleep_tolerance": "v", "apirate": "v", "actuatorgroupdisable": "i*",
}
DISABLE_FLAGS = ("constraint", "equality", "frictionloss", "limit", "contact", "spring", "damper", "gravity",
                 "clampctrl", "warmstart", "filterparent", "actuation", "refsafe", "sensor", "midphase",
                 "eulerdamp", "autoreset", "nativeccd", "island", "multiccd")
ENABLE_FLAGS = ("override", "energy", "fwdinv", "invdiscrete", "sleep", "diagexact", "ipc", "speculative")
_FLAG = {name: "e:enable|disable" for name in DISABLE_FLAGS + ENABLE_FLAGS}
_SIZE = {name: "i" for name in ("njmax", "nconmax", "nstack", "nuserdata", "nkey", "nuser_body",
                                "nuser_jnt", "nuser_geom", "nuser_site", "nuser_cam", "nuser_tendon",
                                "nuser_actuator", "nuser_sensor")}
_SIZE["memory"] = "s"
_STATISTIC = {name: "v" for name in ("meaninertia", "meanmass", "meansize", "extent", "center")}
_VISUAL = {
    "global": ("cameraid", "orthographic", "fovy", "ipd", "azimuth", "elevation", "linewidth", "glow",
               "realtime", "offwidth", "offheight", "ellipsoidinertia", "bvactive"),
    "quality": ("shadowsize", "offsamples", "numslices", "numstacks", "numquads"),
    "headlight": ("ambient", "diffuse", "specular", "active"),
    "map": ("stiffness", "stiffnessrot", "force", "torque", "alpha", "fogstart", "fogend", "znear", "zfar",
            "haze", "shadowclip", "shadowscale", "actuatortendon"),
    "scale": ("forcewidth", "contactwidth", "contactheight", "connect", "com", "camera", "light",
              "selectpoint", "jointlength", "jointwidth", "actuatorlength", "actuatorwidth", "framelength",
              "framewidth", "constraint", "slidercrank", "frustum"),
    "rgba": ("fog", "haze", "force", "inertia", "joint", "actuator", "actuatornegative", "actuatorpositive",
             "com", "camera", "light", "selectpoint", "connect", "contactpoint", "contactforce",
             "contactfriction", "contacttorque", "contactgap", "rangefinder", "constraint", "slidercrank",
             "crankbroken", "frustum", "bv", "bvactive"),
}



def _visual_spec(section, attr):
  """How MuJoCo reads a <visual> attribute (numbers checked like any other, though most are not used)."""
  if section == "rgba":
    return "g4"
  if attr in ("active", "orthographic", "ellipsoidinertia", "bvactive"):
    return "v"
  if section == "quality" or attr in ("cameraid", "offwidth", "offheight"):
    return "i"
  if section == "headlight":
    return "g3"
  return "g"


# Element path (parent/child, or a bare name matched anywhere) -> attribute specs. Children allowed are
# those whose spec exists under the parent's name.
ELEMENTS = {
    "mujoco": {"model": "s"},
    "mujoco/compiler": _COMPILER,
    "compiler/lengthrange": {"mode": "e:none|muscle|muscleuser|all", "useexisting": "b", "uselimit": "b",
                             **{n: "f" for n in ("accel", "maxforce", "timeconst", "timestep", "inttotal",
                                                 "interval", "tolrange")}},
    "mujoco/option": _OPTION,
    "option/flag": _FLAG,
    "mujoco/size": _SIZE,
    "mujoco/statistic": _STATISTIC,
    "mujoco/visual": {},
    **{f"visual/{k}": {a: _visual_spec(k, a) for a in v} for k, v in _VISUAL.items()},
    "mujoco/asset": {},
    "asset/mesh": MESH,
    "asset/texture": TEXTURE,
    "asset/hfield": HFIELD,
    "asset/material": MATERIAL,
    "material/layer": {"texture": "v", "role": "v"},
    # skinned meshes: compiled into the skin_* fields and drawn; no physics
    "asset/skin": {"name": "s", "file": "s", "material": "s", "rgba": "g4", "inflate": "g", "vertex": "g*",
                   "texcoord": "g*", "face": "i*", "group": "i"},
    "skin/bone": {"body": "s", "bindpos": "g3", "bindquat": "g4", "vertid": "i*", "vertweight": "g*"},
    "mujoco/default": {"class": "s"},
    "default/default": {"class": "s"},
    **{f"default/{k}": v for k, v in DEFAULTABLE.items()},
    "mujoco/worldbody": {},
    "body": {"name": "s", "childclass": "s", "pos": "f3", "mocap": "b", "gravcomp": "f", "user": "v",
             "simple": "e:false|auto", **_ORIENT},
    "worldbody/body": None,  # same as "body"
    "body/body": None,
    "body/inertial": {"pos": "f3", "mass": "f", "diaginertia": "f3", "fullinertia": "f6", **_ORIENT},
    "body/joint": JOINT,
    "body/freejoint": {"name": "s", "group": "i", "align": "auto"},
    "body/geom": GEOM,
    "body/site": SITE,
    "body/camera": CAMERA,
    "body/light": LIGHT,
    "mujoco/contact": {},
    "contact/pair": PAIR,
    "contact/exclude": EXCLUDE,
    "mujoco/equality": {},
    **{f"equality/{k}": v for k, v in EQUALITY.items()},
    "mujoco/tendon": {},
    "tendon/fixed": FIXED_TENDON,
    "fixed/joint": {"joint": "s", "coef": "f"},
    "tendon/spatial": SPATIAL_TENDON,
    "spatial/site": {"site": "s"},
    "spatial/geom": {"geom": "s", "sidesite": "s"},
    "spatial/pulley": {"divisor": "f"},
    "mujoco/actuator": {},
    **{f"actuator/{k}": v for k, v in ACTUATORS.items()},
    "mujoco/sensor": {},
    **{f"sensor/{k}": v for k, v in SENSORS.items()},
    "mujoco/deformable": {},
    "deformable/flex": FLEX,
    "flex/contact": FLEX_CONTACT,
    "flex/edge": {"stiffness": "f", "damping": "f"},
    "flex/elasticity": FLEX_ELASTICITY,
    "flexcomp/contact": FLEX_CONTACT,
    "flexcomp/edge": FLEXCOMP_EDGE,
    "flexcomp/elasticity": FLEX_ELASTICITY,
    "flexcomp/pin": {"id": "i*", "range": "i*", "grid": "i*", "gridrange": "i*"},
    "mujoco/keyframe": {},
    "keyframe/key": {"name": "s", "time": "f", "qpos": "f*", "qvel": "f*", "act": "f*", "ctrl": "f*",
                     "mpos": "f*", "mquat": "f*"},
    "mujoco/custom": {},
    "custom/numeric": {"name": "s", "size": "v", "data": "v"},
    "custom/text": {"name": "s", "data": "v"},
    "custom/tuple": {"name": "s"},
    "tuple/element": {"objtype": "v", "objname": "v", "prm": "v"},
}
# The worldbody holds what a body holds, except a body's own frame and inertial/joints.
for _child in ("geom", "site", "camera", "light"):
  ELEMENTS[f"worldbody/{_child}"] = ELEMENTS[f"body/{_child}"]
ELEMENTS["worldbody/body"] = ELEMENTS["body/body"] = ELEMENTS["body"]
ELEMENTS["worldbody/flexcomp"] = ELEMENTS["body/flexcomp"] = ELEMENTS["frame/flexcomp"] = FLEXCOMP
# A <frame> moves the elements inside it (and sets their default class): it holds what its body holds.
FRAME = {"name": "s", "childclass": "s", "pos": "f3", **_ORIENT}
ELEMENTS["worldbody/frame"] = ELEMENTS["body/frame"] = ELEMENTS["frame/frame"] = FRAME
for _child in ("body", "joint", "freejoint", "geom", "site", "camera", "light"):
  ELEMENTS[f"frame/{_child}"] = ELEMENTS[f"body/{_child}"]
# <replicate> repeats what it holds (no joints: MuJoCo refuses them there), each copy moved by offset and turned
# by euler once more than the copy before, and its names suffixed with sep and the copy's number (parser).
REPLICATE = {"count": "i", "offset": "f3", "euler": "f3", "sep": "s"}
for _parent in ("worldbody", "body", "frame", "replicate"):
  ELEMENTS[f"{_parent}/replicate"] = REPLICATE
for _child in ("body", "geom", "site", "camera", "light"):
  ELEMENTS[f"replicate/{_child}"] = ELEMENTS[f"body/{_child}"]
ELEMENTS["replicate/frame"] = FRAME

# Elements earlier MuJoCo versions read that MuJoCo 4 removed (it rejects them as unknown), with what replaces them.
REMOVED_ELEMENTS = {
    "composite": "MuJoCo 4 removed <composite> (and the cable plugin): a cable or rope is a 1-D <flexcomp> "
                 "(dim=\"1\", type=\"grid\" or \"circle\", or \"direct\" with its points) with <elasticity>, and "
                 "<edge equality=\"true\"/> for inextensible edges",
}

# Elements of MuJoCo's MJCF we do not implement, by parent; loading fails naming them.
UNSUPPORTED_ELEMENTS = {
    "mujoco": ("extension", "plugin"),
    "asset": ("model",),
    "worldbody": ("attach", "plugin"),
    "body": ("attach", "plugin"),
    "frame": ("attach", "plugin"),
    "replicate": ("flexcomp", "attach", "plugin"),
    "actuator": ("plugin", "dcmotor"),
    "default": ("dcmotor",),
    "tendon": (),
    "equality": ("flexvert", "flexstrain", "distance"),
    "deformable": ("skin",),
    "flexcomp": ("plugin",),
    "contact": (),
    "sensor": ("camprojection", "tactile", "plugin"),
}


def describe(html=False, pad=False):
  """The element tree this compiler reads, from <mujoco> down, each element with its attributes (those MuJoCo has
  and we refuse left out): one element a line, indented by depth and, with ``pad``, the attributes in a column;
  or with ``html`` an HTML table. An element that holds itself (body, frame) is listed once."""
  rows = []

  def walk(path, tag, depth, seen):
    spec = ELEMENTS.get(path) or ELEMENTS.get(tag) or {}
    rows.append((depth, tag, " ".join(sorted(a for a, s in spec.items() if s != "x"))))
    for key in ELEMENTS:
      parent, _, child = key.rpartition("/")
      if parent == tag and child not in seen:
        walk(key, child, depth + 1, seen | {child})

  walk("mujoco", "mujoco", 0, frozenset(["mujoco"]))
  if html:
    cells = "".join(f'<tr>\n\t<td class="el">{"&nbsp;" * 4 * depth}{tag}</td>\n\t<td class="at">{attrs}</td>\n</tr>\n'
                    for depth, tag, attrs in rows)
    return f'<table border="1">\n{cells}</table>\n'
  width = max(3 * depth + len(tag) for depth, tag, _ in rows) + 2 if pad else 0
  return "".join(f"{' ' * 3 * depth + tag:<{width}}{' ' if not pad else ''}{attrs}\n" for depth, tag, attrs in rows)
