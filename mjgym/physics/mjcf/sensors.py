"""<sensor>: each sensor's type, stage, data type and size, the object (and reference frame) it reads, and its
place in sensordata."""

from mjgym.physics import types
from mjgym.physics.mjcf import schema
from mjgym.physics.mjcf.errors import fail
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
}


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
      if schema.SENSOR_KINDS.get(node.tag) == "geompair":
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
      ctx.add(ObjType.SENSOR, node, sensor_type=int(stype), sensor_datatype=int(datatype),
              sensor_needstage=int(stage), sensor_objtype=int(objtype), sensor_objid=objid,
              sensor_reftype=int(reftype), sensor_refid=refid, sensor_dim=dim, sensor_adr=adr,
              sensor_cutoff=node.get("cutoff", 0.0), sensor_noise=node.get("noise", 0.0))
      adr += dim
  v.update(nsensor=len(ctx.names[ObjType.SENSOR]), nsensordata=adr)


def _sensor_object(ctx, node, kind):
  """(objtype, objid) of a built-in sensor, checking the object fits the sensor."""
  if kind in ("none", "geompair", "insidesite"):
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
    sides.append((objtype, ctx.lookup(objtype, node, kind + k)))
  if sides[0] == sides[1]:
    fail(node, "the first body or geom must differ from the second", "geom2" if node.has("geom2") else "body2")
  return sides[0] + sides[1]


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
