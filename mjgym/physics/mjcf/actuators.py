"""<actuator>: transmissions, dynamics, gain and bias of <general> and the shortcut elements (their default classes
folded in as MuJoCo folds them), control, force and activation ranges, and the length ranges set_const finds."""

import math

import numpy as np

from mjgym.physics import types
from mjgym.physics.mjcf.context import RANGE_RULE
from mjgym.physics.mjcf.context import full
from mjgym.physics.mjcf.context import keywords
from mjgym.physics.mjcf.context import linear
from mjgym.physics.mjcf.context import plain
from mjgym.physics.mjcf.context import range_ok
from mjgym.physics.mjcf.errors import fail
from mjgym.physics.types import BiasType
from mjgym.physics.types import DynType
from mjgym.physics.types import GainType
from mjgym.physics.types import JointType
from mjgym.physics.types import ObjType

# MuJoCo's user dynamics, gain and bias (callbacks) have no member in mjgym's enums: the keyword stays in the
# actuator's record, which is refused once its transmission and ranges are checked.
_USER = "user"
_DYN = {**keywords(DynType), "user": _USER}
_GAIN = {**keywords(GainType), "user": _USER}
_BIAS = {**keywords(BiasType), "user": _USER}
# History buffers (MuJoCo 4): interpolation keywords and the largest buffer (its cursor is stored as a number).
INTERP = {"zoh": 0, "linear": 1, "cubic": 2}
MAX_NSAMPLE = 1 << 24


def actuators(ctx, v):
  """actuator_* and na: one row per actuator in document order; activations numbered in the same order."""
  na = 0
  v["nhistory"] = 0
  for section in ctx.root.all("actuator"):
    for node in section.children:
      p = _actuator_params(node)
      trntype, trnid = _transmission(ctx, node)
      length0 = 0.0  # set from the kinematics at qpos0 (setconst)
      gear = list(node.get("gear", [1.0, 0, 0, 0, 0, 0]))
      limits = {}
      for kind in ("ctrl", "force", "act"):
        lim = ctx.limited(node, f"{kind}limited", f"{kind}range")
        rng = node.get(f"{kind}range", [0.0, 0.0])
        if lim and not range_ok(rng):
          fail(node, f"invalid {kind}range {plain(rng)}: needs {RANGE_RULE}",
               f"{kind}range")
        limits[kind] = (int(lim), rng)
      if _USER in (p["dyntype"], p["gaintype"], p["biastype"]):
        fail(node, "user actuator dynamics/gain/bias are not supported (unsupported feature)", "dyntype")
      _shortcut_limits(ctx, node, p, trntype, trnid, limits)
      lengthrange, simulate = _lengthrange(ctx, node, p, trntype, trnid)
      damping, armature = _damping_armature(ctx, v, node, trntype, trnid)
      actdim = node.get("actdim", -1)
      dynamic = p["dyntype"] != DynType.NONE
      actnum = (1 if dynamic else 0) if actdim < 0 else actdim
      if actnum > 1 or (actnum == 1 and not dynamic) or (actnum == 0 and dynamic):
        fail(node, f"actdim {actdim} does not fit dyntype", "actdim")
      actid = ctx.add(ObjType.ACTUATOR, node, actuator_trntype=trntype, actuator_dyntype=int(p["dyntype"]),
                      actuator_gaintype=int(p["gaintype"]), actuator_biastype=int(p["biastype"]),
                      actuator_trnid=trnid,
                      actuator_actadr=na if actnum else -1, actuator_actnum=actnum,
                      actuator_group=node.get("group", 0),
                      actuator_ctrllimited=limits["ctrl"][0], actuator_forcelimited=limits["force"][0],
                      actuator_actlimited=limits["act"][0], actuator_actearly=int(p["actearly"]),
                      actuator_dynprm=p["dynprm"], actuator_gainprm=p["gainprm"], actuator_biasprm=p["biasprm"],
                      actuator_ctrlrange=limits["ctrl"][1], actuator_forcerange=limits["force"][1],
                      actuator_actrange=limits["act"][1], actuator_gear=gear,
                      actuator_cranklength=node.get("cranklength", 0.0), actuator_length0=length0 * gear[0],
                      actuator_lengthrange=lengthrange, actuator_damping=damping,
                      actuator_armature=armature, **history_fields(node, v, "actuator", 1))
      if simulate:
        ctx.lengthrange_jobs.append((actid, node))
      na += actnum
  v["na"] = na
  _actuator_targets(ctx, v)


def history_fields(node, v, prefix, dim):
  """``{prefix}_history``, ``_historyadr`` and ``_delay`` of an actuator or sensor whose values have dimension dim,
  its history buffer placed at the end of ``v["nhistory"]`` (MuJoCo 4: actuators' buffers, then sensors')."""
  nsample = node.get("nsample", 0)
  delay = node.get("delay", 0.0)
  if nsample < 0:
    fail(node, f"nsample must be non-negative, got {nsample}", "nsample")
  if nsample > MAX_NSAMPLE:
    fail(node, f"at most 2^24 samples in a history buffer, got {nsample}", "nsample")
  if delay > 0 and nsample == 0:
    fail(node, "setting delay > 0 without a history buffer (nsample)", "delay")
  adr = -1
  if nsample:
    adr = v["nhistory"]
    v["nhistory"] += 2 + nsample * (1 + dim)  # last sample time, cursor, times, values
  return {f"{prefix}_history": [nsample, INTERP[node.get("interp", "zoh")]], f"{prefix}_historyadr": adr,
          f"{prefix}_delay": delay}


def _damping_armature(ctx, v, node, trntype, trnid):
  """An actuator's damping and armature (MuJoCo 4): they act on its joint or tendon, scaled by gear²."""
  damping = linear(node, "damping")
  armature = node.get("armature", 0.0)
  joint = trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT))
  for attr, value in (("damping", damping), ("armature", armature)):
    if value and not joint and trntype != int(types.TrnType.TENDON):
      fail(node, f"{attr} requires joint or tendon transmission", attr)
  if armature and trntype == int(types.TrnType.TENDON):
    t = trnid[0]
    kinds = v["wrap_type"][v["tendon_adr"][t]:v["tendon_adr"][t] + v["tendon_num"][t]]
    # MuJoCo compiles it and stops with an engine error at the first step
    if any(w in (int(types.WrapType.SPHERE), int(types.WrapType.CYLINDER)) for w in kinds):
      fail(node, f"armature on tendon '{ctx.names[ObjType.TENDON][t]}', which wraps geoms: tendon armature does "
           "not support geom wrapping (MuJoCo stops with an engine error)", "armature")
  return damping, armature


def _actuator_targets(ctx, v):
  """jnt_actuatorid and tendon_actuatorid, as MuJoCo numbers them: the actuator with damping or armature on
  the joint (joint and jointinparent transmissions) or tendon; -1 none, -2 several."""
  rows = ctx.rows
  targets = {"jnt": [-1] * len(rows.get("jnt_type", [])), "tendon": [-1] * len(rows.get("tendon_limited", []))}
  for i, trntype in enumerate(rows.get("actuator_trntype", [])):
    if not (rows["actuator_damping"][i] or rows["actuator_armature"][i]):
      continue
    if trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT)):
      ids = targets["jnt"]
    elif trntype == int(types.TrnType.TENDON):
      ids = targets["tendon"]
    else:
      continue
    target = rows["actuator_trnid"][i][0]
    ids[target] = i if ids[target] == -1 else -2
  v["jnt_actuatorid"] = np.array(targets["jnt"], np.int32)
  v["tendon_actuatorid"] = np.array(targets["tendon"], np.int32)


def _transmission(ctx, node):
  """(trntype, [id, second id]) of an actuator's transmission, exactly one of which must be given."""
  given = [a for a in ("joint", "jointinparent", "tendon", "site", "cranksite", "body") if node.has(a)]
  if len(given) != 1:
    fail(node, "needs exactly one transmission: 'joint', 'jointinparent', 'tendon', 'site', 'cranksite' "
         "or 'body'", given[1] if given else "joint")
  kind = given[0]
  for attr, owner in (("refsite", "site"), ("slidersite", "cranksite")):
    if node.has(attr) and kind != owner:
      fail(node, f"'{attr}' goes with a '{owner}' transmission", attr)
  if kind in ("joint", "jointinparent"):
    trntype = types.TrnType.JOINT if kind == "joint" else types.TrnType.JOINTINPARENT
    return int(trntype), [ctx.lookup(ObjType.JOINT, node, kind), -1]
  if kind == "tendon":
    return int(types.TrnType.TENDON), [ctx.lookup(ObjType.TENDON, node, "tendon"), -1]
  if kind == "site":
    ref = ctx.lookup(ObjType.SITE, node, "refsite") if node.has("refsite") else -1
    return int(types.TrnType.SITE), [ctx.lookup(ObjType.SITE, node, "site"), ref]
  if kind == "cranksite":
    if not node.has("slidersite"):
      fail(node, "a slider-crank needs 'slidersite'", "slidersite")
    if not node.get("cranklength", 0.0) > 0:
      fail(node, "a slider-crank needs a positive 'cranklength'", "cranklength")
    return int(types.TrnType.SLIDERCRANK), [ctx.lookup(ObjType.SITE, node, "cranksite"),
                                            ctx.lookup(ObjType.SITE, node, "slidersite")]
  return int(types.TrnType.BODY), [ctx.lookup(ObjType.BODY, node, "body"), -1]


def _lengthrange(ctx, node, p, trntype, trnid):
  """(actuator_lengthrange, whether to simulate for it) under <compiler><lengthrange>.

  As given (useexisting), the transmission's joint or tendon limits (uselimit), or, for the actuators
  ``mode`` selects, found by simulating the model once it is compiled (setconst.lengthrange).
  """
  given = list(node.get("lengthrange", [0.0, 0.0]))
  settings = lengthrange_settings(ctx)
  mode = settings["mode"]
  # MuJoCo selects muscles by their gain or bias type (a muscle-type activation alone does not count)
  muscle = p["gaintype"] == GainType.MUSCLE or p["biastype"] == BiasType.MUSCLE
  if mode == "none" or (mode in ("muscle", "muscleuser") and not muscle):
    return given, False
  if settings["useexisting"] and given[0] < given[1]:
    return given, False
  if settings["uselimit"]:
    if trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT)):
      if ctx.rows["jnt_limited"][trnid[0]] and ctx.rows["jnt_type"][trnid[0]] in (JointType.SLIDE, JointType.HINGE):
        # MuJoCo takes the limits as they are, without the gear
        return list(ctx.rows["jnt_range"][trnid[0]]), False
    elif trntype == int(types.TrnType.TENDON) and ctx.rows["tendon_limited"][trnid[0]]:
      return list(ctx.rows["tendon_range"][trnid[0]]), False
  return [0.0, 0.0], True


def lengthrange_settings(ctx):
  """The <compiler><lengthrange> options with MuJoCo's defaults, checked once."""
  if ctx.lengthrange_options is None:
    settings = dict(mode="muscle", useexisting=True, uselimit=False, accel=20.0, maxforce=0.0, timeconst=1.0,
                    timestep=0.01, inttotal=10.0, interval=2.0, tolrange=0.05)
    for comp in ctx.root.all("compiler"):
      for lr in comp.all("lengthrange"):
        settings.update(lr.attrs)
        for attr in ("accel", "timeconst", "inttotal", "interval", "tolrange"):
          if lr.has(attr) and not settings[attr] > 0:
            fail(lr, f"{attr} must be positive, got {settings[attr]}", attr)
        for attr in ("maxforce", "timestep"):
          if lr.has(attr) and not settings[attr] >= 0:
            fail(lr, f"{attr} must be non-negative, got {settings[attr]}", attr)
    ctx.lengthrange_options = settings
  return ctx.lengthrange_options


def _shortcut_limits(ctx, node, p, trntype, trnid, limits):
  """Ranges the shortcuts fix or require: inheritrange, intvelocity's actrange, damper/adhesion controls."""
  kind = p["kind"]
  # only the shortcuts that take it read inheritrange (a <motor> of a class whose <position> default sets it
  # keeps its own ctrlrange, as in MuJoCo)
  inherit = p.get("inheritrange", 0.0) if kind in ("position", "intvelocity") else 0.0
  if inherit > 0:
    if trntype in (int(types.TrnType.JOINT), int(types.TrnType.JOINTINPARENT)):
      j = trnid[0]
      if ctx.rows["jnt_type"][j] not in (JointType.SLIDE, JointType.HINGE) or not ctx.rows["jnt_limited"][j]:
        fail(node, "inheritrange needs a limited hinge or slide joint", "inheritrange")
      rng = ctx.rows["jnt_range"][j]
    elif trntype == int(types.TrnType.TENDON) and ctx.rows["tendon_limited"][trnid[0]]:
      rng = ctx.rows["tendon_range"][trnid[0]]
    else:
      fail(node, "inheritrange needs a limited joint or tendon transmission", "inheritrange")
    mid, half = 0.5 * (rng[0] + rng[1]), 0.5 * inherit * (rng[1] - rng[0])
    which = "act" if kind == "intvelocity" else "ctrl"
    if node.has(f"{which}range"):
      fail(node, f"give either inheritrange or {which}range", "inheritrange")
    limits[which] = (1, [mid - half, mid + half])
  if kind == "intvelocity" and not limits["act"][0]:
    fail(node, "intvelocity needs actrange (actlimited)", "actrange")
  if kind in ("damper", "adhesion"):
    lim, rng = limits["ctrl"]
    if not lim or rng[0] < 0:
      fail(node, f"<{kind}> needs a non-negative ctrlrange", "ctrlrange")
  if kind == "adhesion" and trntype != int(types.TrnType.BODY):
    fail(node, "<adhesion> acts through a 'body'", "body")


def _actuator_params(node):
  """dyn/gain/bias types and parameters of an actuator, folding its default chain and its own shortcut.

  Every actuator default (of any shortcut kind) edits one record per class, as in MuJoCo; a shortcut element
  then reads its own parameters (kp, kv, ...) with defaults taken from that record.
  """
  rec = dict(kind=None, dyntype=DynType.NONE, gaintype=GainType.FIXED, biastype=BiasType.NONE,
             dynprm=[1.0] + [0.0] * 9, gainprm=[1.0] + [0.0] * 9, biasprm=[0.0] * 10, actearly=False)
  for kind, attrs, src in node.actuator_chain:
    _apply_shortcut(rec, kind, attrs, src)
  _apply_shortcut(rec, node.tag, {a: node.attrs[a] for a in node.given}, node)
  return rec


def _apply_shortcut(rec, kind, attrs, node):
  """Folds the attributes ``attrs`` of one <general> or shortcut element or default (``kind``) into the record."""
  if kind == "general":
    for attr, table in (("dyntype", _DYN), ("gaintype", _GAIN), ("biastype", _BIAS)):
      if attr in attrs:
        rec[attr] = table[attrs[attr]]
    for attr in ("dynprm", "gainprm", "biasprm"):
      if attr in attrs:
        rec[attr] = full(attrs[attr], rec[attr])
    if "actearly" in attrs:
      rec["actearly"] = attrs["actearly"]
    if any(a in attrs for a in ("gaintype", "biastype", "gainprm", "biasprm", "dyntype", "dynprm")):
      rec["kind"] = "general"
    return
  if kind == "adhesion":
    # as MuJoCo 4: the gain defaults to the record's gain, whichever element set it; the rest is the shortcut's
    gain = attrs.get("gain", rec["gainprm"][0])
    if gain < 0:
      fail(node, "gain must be non-negative", "gain")
    rec.update(kind=kind, own={}, dyntype=DynType.NONE, dynprm=[1.0] + [0.0] * 9, gaintype=GainType.FIXED,
               gainprm=[gain] + [0.0] * 9, biastype=BiasType.NONE, biasprm=[0.0] * 10)
    return
  # A shortcut takes its own parameters' defaults from the record when the record was set by the same
  # shortcut or by <general>; MuJoCo's rules for the remaining mixes are not reproduced, so refuse them.
  # (a motor reads nothing from the record)
  allowed = (None, "motor", "general", kind) if kind in ("position", "velocity") else (None, kind)
  if kind != "motor" and rec["kind"] not in allowed:
    fail(node, f"a <{kind}> actuator over a default class set by <{rec['kind']}> is not supported "
         "(unsupported feature); use the same shortcut in the default class", "class")
  same = rec["kind"] in (kind, "general")
  # accumulated attributes of this shortcut along the default chain
  own = dict(rec.get("own", {})) if rec["kind"] == kind else {}
  own.update(attrs)
  dynprm, dyntype, gaintype, biastype = [1.0] + [0.0] * 9, DynType.NONE, GainType.FIXED, BiasType.AFFINE
  gain, bias = [1.0], [0.0, 0.0, 0.0]
  if kind == "motor":
    biastype = BiasType.NONE
  elif kind in ("position", "intvelocity"):
    kp = attrs.get("kp", rec["gainprm"][0] if same else 1.0)
    if "kv" in attrs and "dampratio" in attrs:
      fail(node, "give either kv or dampratio, not both", "dampratio")
    if "dampratio" in attrs:
      b2 = attrs["dampratio"]  # stays positive until setconst turns it into -kv
    elif "kv" in attrs:
      b2 = -attrs["kv"]
    else:
      b2 = rec["biasprm"][2] if same else 0.0
    for attr in ("kv", "dampratio"):
      if attrs.get(attr, 0.0) < 0:
        fail(node, f"{attr} must be non-negative, got {attrs[attr]}", attr)
    gain, bias = [kp], [0.0, -kp, b2]
    rec["inheritrange"] = own.get("inheritrange", 0.0)
    if kind == "intvelocity":
      dyntype = DynType.INTEGRATOR
    else:
      timeconst = attrs.get("timeconst", rec["dynprm"][0] if same and rec["dyntype"] == DynType.FILTEREXACT else 0.0)
      if timeconst < 0:
        fail(node, "timeconst must be non-negative", "timeconst")
      if timeconst > 0:
        dyntype, dynprm[0] = DynType.FILTEREXACT, timeconst
  elif kind == "velocity":
    kv = attrs.get("kv", rec["gainprm"][0] if same else 1.0)
    gain, bias = [kv], [0.0, 0.0, -kv]
  elif kind == "damper":
    kv = own.get("kv", 1.0)
    if kv < 0:
      fail(node, "kv must be non-negative", "kv")
    gaintype, biastype, gain, bias = GainType.AFFINE, BiasType.NONE, [0.0, 0.0, -kv], [0.0]
  elif kind == "cylinder":
    dyntype, dynprm[0] = DynType.FILTER, own.get("timeconst", 1.0)
    area = own.get("area", 1.0)
    if "diameter" in own:
      area = math.pi / 4.0 * own["diameter"] ** 2
    gain, bias = [area], list(own.get("bias", [0.0, 0.0, 0.0]))
  else:  # muscle
    tc = own.get("timeconst", [0.01, 0.04])
    rng = own.get("range", [0.75, 1.05])
    prm = [rng[0], rng[1], own.get("force", -1.0), own.get("scale", 200.0), own.get("lmin", 0.5),
           own.get("lmax", 1.6), own.get("vmax", 1.5), own.get("fpmax", 1.3), own.get("fvmax", 1.2)]
    if not (tc[0] > 0 and tc[1] > 0 and 0 <= rng[0] < rng[1] and prm[4] < 1 < prm[5]):
      fail(node, "muscle needs positive time constants, 0 <= range[0] < range[1] and lmin < 1 < lmax",
           "range")
    dyntype, gaintype, biastype = DynType.MUSCLE, GainType.MUSCLE, BiasType.MUSCLE
    dynprm[:3] = [tc[0], tc[1], own.get("tausmooth", 0.0)]
    gain = bias = prm
  rec.update(kind=kind, own=own, dyntype=dyntype, dynprm=dynprm, gaintype=gaintype,
             gainprm=gain + [0.0] * (10 - len(gain)), biastype=biastype,
             biasprm=bias + [0.0] * (10 - len(bias)))
