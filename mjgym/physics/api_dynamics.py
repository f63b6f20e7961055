"""Inverse dynamics and finite-difference derivatives under the `mujoco` bindings' names and signatures:
``mj_inverse``, ``mjd_transitionFD``, ``mjd_inverseFD``, ``mj_integratePos``, ``mj_differentiatePos``."""

import numpy as np

from mjgym.physics import api
from mjgym.physics import derivative
from mjgym.physics import forward
from mjgym.physics import inverse
from mjgym.physics.types import DisableBit
from mjgym.physics.types import EnableBit


def inverse_stages(m, d, position=True, velocity=True, sensors=True):
  """mj_inverseSkip: the position and velocity stages (unless both are skipped), then the acceleration part."""
  part = forward.part_entry(m)
  flags = m.opt.disableflags
  if position or velocity:
    # the velocity stage is the second half of PART_POSITION: both run again (the same numbers at the same qpos)
    part(m._struct, d._struct, forward.PART_POSITION)
    passive = api._passive_callback[0]  # pylint: disable=protected-access
    if passive is not None and not (flags & DisableBit.SPRING and flags & DisableBit.DAMPER):
      passive(m, d)
    part(m._struct, d._struct, forward.PART_VELOCITY_END)
  if m.opt.enableflags & EnableBit.INVDISCRETE:
    inverse.check_integrator(m, "discrete inverse dynamics")
  qfrc_inverse = inverse.qfrc_inverse_of(d)
  inverse.inverse_acceleration(m._struct, d._struct, qfrc_inverse, bool(sensors))
  return qfrc_inverse


def mj_inverse(m, d):  # pylint: disable=invalid-name
  """Inverse dynamics: ``d.qfrc_inverse`` (nv,), the force that gives ``d.qacc`` at the current state, with the
  constraint forces of the soft-constraint model at ``d.qacc`` (efc_force, qfrc_constraint) and the sensors."""
  inverse_stages(m, d)


def mj_integratePos(m, qpos, qvel, dt):  # pylint: disable=invalid-name
  """qpos (nq,) <- qpos integrated over time ``dt`` at velocity ``qvel`` (nv,), quaternions on the sphere."""
  _check_vector(qpos, m.nq, "qpos", writeable=True)
  forward.integrate_pos(m._struct, qpos, np.ascontiguousarray(qvel, np.float64).reshape(m.nv), float(dt))


def mj_differentiatePos(m, qvel, dt, qpos1, qpos2):  # pylint: disable=invalid-name
  """qvel (nv,) <- the velocity that takes qpos1 to qpos2 in time ``dt`` (inverse of mj_integratePos)."""
  _check_vector(qvel, m.nv, "qvel", writeable=True)
  derivative.differentiate_pos(m._struct, qvel, float(dt), np.ascontiguousarray(qpos1, np.float64).reshape(m.nq),
                               np.ascontiguousarray(qpos2, np.float64).reshape(m.nq))


def _check_vector(arr, n, name, writeable=False):
  if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or arr.size != n:
    raise TypeError(f"{name} must be a float64 numpy array of size {n}")
  if writeable and (not arr.flags.writeable or not arr.flags.c_contiguous):
    raise ValueError(f"{name} must be writeable and C-contiguous")


def _out(arr, shape, name):
  """A bindings output argument: None, or a float64 C-contiguous writeable array of ``shape``."""
  if arr is None:
    return None
  if not isinstance(arr, np.ndarray) or arr.dtype != np.float64:
    raise TypeError(f"{name} must be a float64 numpy array or None")
  if arr.size != int(np.prod(shape)) or not arr.flags.c_contiguous or not arr.flags.writeable:
    raise ValueError(f"{name} must be a writeable C-contiguous array of shape {shape}, got {arr.shape}")
  return arr


def mjd_transitionFD(m, d, eps, flg_centered, A, B, C, D):  # pylint: disable=invalid-name
  """Finite-difference Jacobians of one mj_step, as MuJoCo's mjd_transitionFD.

  With the state x = (qpos as nv tangent coordinates, qvel, act) (ndx = 2 nv + na), control u = ctrl and the
  step's sensor values s: A = dx'/dx (ndx, ndx), B = dx'/du (ndx, nu), C = ds/dx (nsensordata, ndx),
  D = ds/du (nsensordata, nu); any may be None. Forward differences of size ``eps``, or centered ones with
  ``flg_centered``; controls at a limit of a limited ctrlrange are differenced one-sided. Every perturbed step
  starts from d's full integration state (warm start included); ``d`` itself is left unchanged. The perturbed
  steps run as worlds of one batch, in parallel. Python callbacks are not called.
  """
  inverse.check_integrator(m, "mjd_transitionFD")
  ndx, nu, ns = 2 * m.nv + m.na, m.nu, m.nsensordata
  outs = (_out(A, (ndx, ndx), "A"), _out(B, (ndx, nu), "B"), _out(C, (ns, ndx), "C"), _out(D, (ns, nu), "D"))
  result = derivative.transition_fd(m, [d], float(eps), bool(flg_centered), *[o is not None for o in outs])
  for out, value in zip(outs, result):
    if out is not None:
      out.reshape(value.shape[1:])[...] = value[0]


def mjd_inverseFD(m, d, eps, flg_actuation, DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq):  # pylint: disable=invalid-name
  """Finite-difference Jacobians of mj_inverse, as MuJoCo's mjd_inverseFD (forward differences of size ``eps``).

  Transposed layout, as MuJoCo: DfDq, DfDv, DfDa (nv, nv) with row i the derivative of qfrc_inverse along
  dimension i of qpos (tangent), qvel, qacc; DsDq, DsDv, DsDa (nv, nsensordata) for the sensors; DmDq (nv, nC)
  for the mass matrix in MuJoCo's compressed row layout (``d.M``). With ``flg_actuation`` the force is
  qfrc_inverse - qfrc_actuator. Any output may be None. ``d`` ends as MuJoCo leaves it: the state restored,
  derived fields those of the last perturbed evaluation.
  """
  inverse.check_integrator(m, "mjd_inverseFD")
  if m.opt.noslip_iterations:
    raise ValueError("mjd_inverseFD: the noslip solver is not supported")
  nv, ns, nm = m.nv, m.nsensordata, len(derivative.mass_csr_index(m))
  outs = [_out(a, (nv, n), name) for a, n, name in
          ((DfDq, nv, "DfDq"), (DfDv, nv, "DfDv"), (DfDa, nv, "DfDa"), (DsDq, ns, "DsDq"), (DsDv, ns, "DsDv"),
           (DsDa, ns, "DsDa"), (DmDq, nm, "DmDq"))]
  derivative.inverse_fd(m, d, float(eps), bool(flg_actuation), inverse_stages, *outs)
