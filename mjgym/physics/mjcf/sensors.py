"""<sensor>: each sensor's type, stage, data type and size, the object (and reference frame) it reads, and its
place in sensordata."""

from mjgym.physics import types
from mjgym.physics.mjcf import actuators
from mjgym.physics.mjcf import schema
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import GeomType
from mjgym.physics.types import JointType
from mjgym.physics.types import ObjType

_ST, _STAGE, _DT = types.SensorType, types.Stage, types.DataType
# Sensor tag -> (type, stage it needs, data type, dimension).
_SENSOR_INFO = {
    "touch": (_ST.TOUCH, _STAGE.ACC, _DT.POSITIVE, 1),
    "accelerometer": (_ST.ACCELEROMETER, _STAGE.ACC, _DT.REAL, 3),
    "velocimeter": (_ST.VELOCIMETER, _STAGE.VEL, _DT.REAL, 3),
    "gyro": (_ST.GYRO, _STAGE.VEL, _DT.REAL, 3),
    "force": (_ST.FORCE, _STAGE.ACC, _DT.REAL, 3),
    "torque": (_ST.TORQUE, _STAGE.ACC, _DT.REAL, 3),
    "magnetometer": (_ST.MAGNETOMETER, _STAGE.POS, _DT.REAL, 3),
    "rangefinder": (_ST.RANGEFINDER, _STAGE.POS, _DT.REAL, 1),
    "jointpos": (_ST.JOINTPOS, _STAGE.POS, _DT.REAL, 1),
    "jointvel": (_ST.JOINTVEL, _STAGE.VEL, _DT.REAL, 1),
    "tendonpos": (_ST.TENDONPOS, _STAGE.POS, _DT.REAL, 1),
    "tendonvel": (_ST.TENDONVEL, _STAGE.VEL, _DT.REAL, 1),
    "actuatorpos": (_ST.ACTUATORPOS, _STAGE.POS, _DT.REAL, 1),
    "actuatorvel": (_ST.ACTUATORVEL, _STAGE.VEL, _DT.REAL, 1),
    "actuatorfrc": (_ST.ACTUATORFRC, _STAGE.ACC, _DT.REAL, 1),
    "jointactuatorfrc": (_ST.JOINTACTFRC, _STAGE.ACC, _DT.REAL, 1),
    "tendonactuatorfrc": (_ST.TENDONACTFRC, _STAGE.ACC, _DT.REAL, 1),
    "ballquat": (_ST.BALLQUAT, _STAGE.POS, _DT.QUATERNION, 4),
    "ballangvel": (_ST.BALLANGVEL, _STAGE.VEL, _DT.REAL, 3),
    "jointlimitpos": (_ST.JOINTLIMITPOS, _STAGE.POS, _DT.REAL, 1),
    "jointlimitvel": (_ST.JOINTLIMITVEL, _STAGE.VEL, _DT.REAL, 1),
    "jointlimitfrc": (_ST.JOINTLIMITFRC, _STAGE.ACC, _DT.REAL, 1),
    "tendonlimitpos": (_ST.TENDONLIMITPOS, _STAGE.POS, _DT.REAL, 1),
    "tendonlimitvel": (_ST.TENDONLIMITVEL, _STAGE.VEL, _DT.REAL, 1),
    "tendonlimitfrc": (_ST.TENDONLIMITFRC, _STAGE.ACC, _DT.REAL, 1),
    "framepos": (_ST.FRAMEPOS, _STAGE.POS, _DT.REAL, 3),
    "framequat": (_ST.FRAMEQUAT, _STAGE.POS, _DT.QUATERNION, 4),
    "framexaxis": (_ST.FRAMEXAXIS, _STAGE.POS, _DT.AXIS, 3),
    "frameyaxis": (_ST.FRAMEYAXIS, _STAGE.POS, _DT.AXIS, 3),
    "framezaxis": (_ST.FRAMEZAXIS, _STAGE.POS, _DT.AXIS, 3),
    "framelinvel": (_ST.FRAMELINVEL, _STAGE.VEL, _DT.REAL, 3),
    "frameangvel": (_ST.FRAMEANGVEL, _STAGE.VEL, _DT.REAL, 3),
    "framelinacc": (_ST.FRAMELINACC, _STAGE.ACC, _DT.REAL, 3),
    "frameangacc": (_ST.FRAMEANGACC, _STAGE.ACC, _DT.REAL, 3),
    "subtreecom": (_ST.SUBTREECOM, _STAGE.POS, _DT.REAL, 3),
    "subtreelinvel": (_ST.SUBTREELINVEL, _STAGE.VEL, _DT.REAL, 3),
    "subtreeangmom": (_ST.SUBTREEANGMOM, _STAGE.VEL, _DT.REAL, 3),
    "clock": (_ST.CLOCK, _STAGE.POS, _DT.REAL, 1),
    "distance": (_ST.GEOMDIST, _STAGE.POS, _DT.REAL, 1),
    "normal": (_ST.GEOMNORMAL, _STAGE.POS, _DT.AXIS, 3),
    "fromto": (_ST.GEOMFROMTO, _STAGE.POS, _DT.REAL, 6),
    "insidesite": (_ST.INSIDESITE, _STAGE.POS, _DT.POSITIVE, 1),
    # MuJoCo 4 evaluates kinetic energy with the position-stage sensors (qM and qvel are known there)
    "e_potential": (_ST.E_POTENTIAL, _STAGE.POS, _DT.REAL, 1),
    "e_kinetic": (_ST.E_KINETIC, _STAGE.POS, _DT.REAL, 1),
    "contact": (_ST.CONTACT, _STAGE.ACC, _DT.REAL, 0),  # stage and dim: _contact_sensor
}
# The data fields a contact sensor may report, in the order MuJoCo requires and lays them out (mjtConDataField),
# and their sizes.
CONTACT_DATA = {"found": 1, "force": 3, "torque": 3, "dist": 1, "pos": 3, "normal": 3, "tangent": 3, "linvel": 3,
                "angvel": 3}
_REDUCE = {"none": 0, "mindist": 1, "maxforce": 2, "netforce": 3}


def sensors(ctx, v):
  """Sensor rows in document order; their data is laid out back to back in sensordata."""
  adr = 0
  for section in ctx.root.all("sensor"):
    for node in section.children:
      if node.tag == "user":
        if not node.has("dim") or node.get("dim") < 1:
          fail(node, "a user sensor needs a positive 'dim'", "dim")
        stype, dim = types.SensorType.USER, node.get("dim")
        stage = types.Stage[node.get("needstage", "acc").upper()]
        datatype = types.DataType[node.get("datatype", "real").upper()]
        objtype, objid = _sensor_user_object(ctx, node)
      else:
        stype, stage, datatype, dim = _SENSOR_INFO[node.tag]
        objtype, objid = _sensor_object(ctx, node, schema.SENSOR_KINDS[node.tag])
      reftype, refid = ObjType.UNKNOWN, -1
      intprm = [1, 0, 0] if node.tag == "rangefinder" else [0, 0, 0]  # a rangefinder reports its distance only
      if node.tag == "contact":
        objtype, objid, reftype, refid, intprm, dim, stage = _contact_sensor(ctx, node)
      elif schema.SENSOR_KINDS.get(node.tag) == "geompair":
        objtype, objid, reftype, refid = _geom_pair(ctx, node)
      elif node.tag == "insidesite":
        objtype, objid = _frame_object(ctx, node, "objtype", "objname")
        if not node.has("site"):
          fail(node, "required attribute missing", "site")
        reftype, refid = ObjType.SITE, ctx.lookup(ObjType.SITE, node, "site")
      elif node.has("reftype") or node.has("refname"):
        for attr in ("reftype", "refname"):
          if not node.has(attr):
            fail(node, "reftype and refname go together", attr)
        if node.tag in ("framelinacc", "frameangacc"):
          fail(node, "acceleration frame sensors have no reference frame", "reftype")
        reftype, refid = _frame_object(ctx, node, "reftype", "refname")
      if node.get("cutoff", 0.0) < 0:
        fail(node, "cutoff must be non-negative", "cutoff")
      if node.get("noise", 0.0) < 0:
        fail(node, "noise must be non-negative", "noise")
      period, phase = _interval(node)
      ctx.add(ObjType.SENSOR, node, sensor_type=int(stype), sensor_datatype=int(datatype),
              sensor_needstage=int(stage), sensor_objtype=int(objtype), sensor_objid=objid,
              sensor_reftype=int(reftype), sensor_refid=refid, sensor_dim=dim, sensor_adr=adr,
              sensor_cutoff=node.get("cutoff", 0.0), sensor_noise=node.get("noise", 0.0), sensor_intprm=intprm,
              sensor_interval=[period, phase], **actuators.history_fields(node, v, "sensor", dim))
      adr += dim
  v.update(nsensor=len(ctx.names[ObjType.SENSOR]), nsensordata=adr)


def _interval(node):
  """(period, phase) of a sensor's sampling: period 0 samples every step; -period < phase <= 0."""
  period, phase = (list(node.get("interval", [0.0])) + [0.0])[:2]
  if period < 0:
    fail(node, "negative interval in sensor", "interval")
  if phase > 0:
    fail(node, "positive phase in sensor", "interval")
  if period > 0 and phase <= -period:
    fail(node, "phase must be greater than -period in sensor", "interval")
  return period, phase


def _sensor_object(ctx, node, kind):
  """(objtype, objid) of a built-in sensor, checking the object fits the sensor."""
  if kind in ("none", "geompair", "insidesite", "contact"):
    return ObjType.UNKNOWN, -1
  if kind == "frame":
    return _frame_object(ctx, node, "objtype", "objname")
  objtype = ObjType[kind.upper()]
  if not node.has(kind):
    fail(node, "required attribute missing", kind)
  objid = ctx.lookup(objtype, node, kind)
  if kind == "joint":
    jtype = ctx.rows["jnt_type"][objid]
    ball = node.tag in ("ballquat", "ballangvel")
    if ball and jtype != JointType.BALL:
      fail(node, f"<{node.tag}> needs a ball joint", "joint")
    limit = node.tag.startswith("jointlimit")
    if not ball and not limit and jtype not in (JointType.SLIDE, JointType.HINGE):
      fail(node, f"<{node.tag}> needs a hinge or slide joint", "joint")
    if limit and jtype == JointType.FREE:
      fail(node, "a free joint has no limits", "joint")
  return objtype, objid


def _geom_pair(ctx, node):
  """(objtype, objid, reftype, refid) of a geom-distance sensor: a geom or a body (all its geoms) on each side."""
  sides = []
  for k in ("1", "2"):
    given = [kind for kind in ("geom", "body") if node.has(kind + k)]
    if len(given) != 1:
      fail(node, f"exactly one of 'geom{k}', 'body{k}' is needed", f"geom{k}")
    kind = given[0]
    objtype = ObjType.GEOM if kind == "geom" else ObjType.BODY
    objid = ctx.lookup(objtype, node, kind + k)
    if objtype == ObjType.GEOM and ctx.rows["geom_type"][objid] == GeomType.HFIELD:
      fail(node, "height fields are not supported in geom distance sensors (as in MuJoCo)", kind + k)
    sides.append((objtype, objid))
  if sides[0] == sides[1]:
    fail(node, "the first body or geom must differ from the second", "geom2" if node.has("geom2") else "body2")
  return sides[0] + sides[1]


def _contact_sensor(ctx, node):
  """(objtype, objid, reftype, refid, intprm, dim, stage) of a contact sensor: the contacts it matches (each side a geom, a
  body, a subtree or, on side 1, a site's volume; none: any), its data fields, reduction and number of slots."""
  sides = []
  for k, kinds in (("1", ("geom", "body", "subtree", "site")), ("2", ("geom", "body", "subtree"))):
    attrs = [kind + k if kind != "site" else kind for kind in kinds]
    given = [attr for attr in attrs if node.has(attr)]
    if len(given) > 1:
      fail(node, f"at most one of {', '.join(repr(a) for a in attrs)} can be given", given[1])
    if not given:
      sides += [ObjType.UNKNOWN, -1]
      continue
    kind = given[0].rstrip("12")
    objtype = {"geom": ObjType.GEOM, "body": ObjType.BODY, "subtree": ObjType.XBODY, "site": ObjType.SITE}[kind]
    sides += [objtype, ctx.lookup(ObjType.BODY if kind == "subtree" else objtype, node, given[0])]
  num = node.get("num", 1)
  if num < 1:
    fail(node, "num must be positive", "num")
  fields = node.get("data", "found").split()
  order = list(CONTACT_DATA)
  if not fields or any(f not in CONTACT_DATA for f in fields):
    fail(node, f"data fields are {', '.join(order)}", "data")
  positions = [order.index(f) for f in fields]
  if positions != sorted(set(positions)):
    fail(node, f"data fields must be given once each, in the order {', '.join(order)}", "data")
  reduce = node.get("reduce", "none")
  if reduce == "netforce" and ("linvel" in fields or "angvel" in fields):
    fail(node, "the netforce reduction has no linvel or angvel", "data")
  dataspec = sum(1 << p for p in positions)
  size = sum(CONTACT_DATA[f] for f in fields)
  # MuJoCo's stage: forces need the constraint solve, velocities the velocity stage, the rest only the contacts
  if {"force", "torque"} & set(fields) or reduce in ("maxforce", "netforce"):
    stage = _STAGE.ACC
  elif {"linvel", "angvel"} & set(fields):
    stage = _STAGE.VEL
  else:
    stage = _STAGE.POS
  return (*sides, [dataspec, _REDUCE[reduce], num], num * size, stage)


def _frame_object(ctx, node, type_attr, name_attr):
  for attr in (type_attr, name_attr):
    if not node.has(attr):
      fail(node, "required attribute missing", attr)
  objtype = {"body": ObjType.BODY, "xbody": ObjType.XBODY, "geom": ObjType.GEOM, "site": ObjType.SITE,
             "camera": ObjType.CAMERA}[node.get(type_attr)]
  lookup_type = ObjType.BODY if objtype == ObjType.XBODY else objtype
  return objtype, ctx.lookup(lookup_type, node, name_attr)


def _sensor_user_object(ctx, node):
  if not node.has("objtype"):
    return ObjType.UNKNOWN, -1
  name = node.get("objtype")
  try:
    objtype = ObjType[name.upper()]
  except KeyError:
    fail(node, f"unknown object type '{name}'", "objtype")
  if objtype not in ctx.names:
    fail(node, f"user sensors of '{name}' objects are not supported (unsupported feature)", "objtype")
  if not node.has("objname"):
    fail(node, "required attribute missing", "objname")
  return objtype, ctx.lookup(objtype, node, "objname")
