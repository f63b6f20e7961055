"""Jacobians of points on bodies and the mapping of Cartesian forces to joint space."""

from numba import njit

from mjgym.physics import math


@njit(cache=True)
def _last_dof(m, body):
  """The deepest dof that moves ``body`` (-1 if none); its dof_parentid chain is every such dof."""
  while body > 0 and m.body_dofnum[body] == 0:
    body = m.body_parentid[body]
  if body == 0:
    return -1
  return m.body_dofadr[body] + m.body_dofnum[body] - 1


@njit(cache=True)
def jac(m, d, jacp, jacr, point, body):
  """jacp, jacr (3, nv) = translational and rotational Jacobians of world ``point`` attached to ``body``."""
  jacp[:, :] = 0.0
  jacr[:, :] = 0.0
  c = d.subtree_com[m.body_rootid[body]]
  offset = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  j = _last_dof(m, body)
  while j >= 0:
    cdof = d.cdof[j]
    t = math.cross(cdof[:3], offset)
    for k in range(3):
      jacr[k, j] = cdof[k]
      jacp[k, j] = cdof[3 + k] + t[k]
    j = m.dof_parentid[j]


@njit(cache=True)
def apply_ft(m, d, force, torque, point, body, qfrc):
  """qfrc += Jᵀ (force, torque) for a force and torque applied at world ``point`` on ``body``."""
  # jacpᵀ f + jacrᵀ t = cdof · (t + r x f, f) with r the point relative to the tree's reference point
  c = d.subtree_com[m.body_rootid[body]]
  r = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
  rf = math.cross(r, force)
  wrench = (torque[0] + rf[0], torque[1] + rf[1], torque[2] + rf[2], force[0], force[1], force[2])
  j = _last_dof(m, body)
  while j >= 0:
    qfrc[j] += math.dot6(d.cdof[j], wrench)
    j = m.dof_parentid[j]


@njit(cache=True)
def xfrc_accumulate(m, d, qfrc):
  """qfrc += joint-space forces of all xfrc_applied (force, torque at each body's com)."""
  for i in range(1, m.nbody):
    xf = d.xfrc_applied[i]
    nonzero = False
    for k in range(6):
      if xf[k] != 0.0:
        nonzero = True
    if nonzero:
      apply_ft(m, d, xf[:3], xf[3:], d.xipos[i], i, qfrc)
