"""Parsed MJCF tree -> MjModel fields: the compile stages in MuJoCo's order, each in its module of mjcf/.

Every stage reads the parsed tree and the shared compile state (``context.Context``) and fills the dict of model
fields (``v``, field name -> value); later stages read what earlier ones made.
"""

from mjgym.physics.mjcf import actuators
from mjgym.physics.mjcf import assets
from mjgym.physics.mjcf import bodies
from mjgym.physics.mjcf import constraints
from mjgym.physics.mjcf import context
from mjgym.physics.mjcf import finalize
from mjgym.physics.mjcf import flex
from mjgym.physics.mjcf import inertia
from mjgym.physics.mjcf import meshes
from mjgym.physics.mjcf import options
from mjgym.physics.mjcf import sensors
from mjgym.physics.mjcf import simplify
from mjgym.physics.mjcf import tendons
from mjgym.physics.mjcf import tree
from mjgym.physics.types import ObjType


def compile_tree(root, filename, source):
  """Model field values, per-type names, and (actuators whose length range setconst simulates, the
  <compiler><lengthrange> options, joints whose stiffness and damping setconst derives from springdamper)."""
  ctx = context.Context(root, filename, source)
  options.check_sizes(ctx)
  simplify.drop_visual_assets(ctx)
  assets.compile_assets(ctx)
  flex.place_flexcomps(ctx)
  bodies.compile_bodies(ctx)
  v = {}
  inertia.body_inertias(ctx, v)
  simplify.discard_visual(ctx, v)
  simplify.fuse_static(ctx, v)
  inertia.align_free_bodies(ctx, v)
  inertia.set_total_mass(ctx, v)
  xpos, xquat, subtree_com = inertia.kinematics(ctx, v)
  tree.joints_and_dofs(ctx, v)
  inertia.check_masses(ctx, v)
  tree.layout(ctx, v)
  bodies.camlight(ctx, v, xpos, xquat, subtree_com)
  tendons.tendons(ctx, v)
  actuators.actuators(ctx, v)
  tendons.demote_simple(ctx, v)
  flex.collect(ctx)
  constraints.equality(ctx)
  flex.flex_fields(ctx, v, xpos, xquat)
  constraints.contact(ctx)
  sensors.sensors(ctx, v)
  options.options(ctx, v)
  options.visual(ctx, v)
  finalize.keyframes(ctx, v)
  finalize.assemble(ctx, v)
  meshes.mesh_fields(ctx, v)
  meshes.hfield_fields(ctx, v)
  assets.texture_fields(ctx, v)
  assets.skin_fields(ctx, v)
  options.capacities(ctx, v)
  ctx.names[ObjType.MODEL] = [ctx.root.get("model") or "MuJoCo Model"]
  return v, ctx.names, (ctx.lengthrange_jobs, actuators.lengthrange_settings(ctx), ctx.springdamper_jobs)
