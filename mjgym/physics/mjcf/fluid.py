"""geom_fluid: the coefficients of MuJoCo's ellipsoid fluid model (``<geom fluidshape="ellipsoid">``).

Each geom is seen as the ellipsoid with its semi-axes; besides the five user coefficients it carries the
ellipsoid's added (virtual) mass and inertia in potential flow, per unit fluid density, in its own frame.
"""

import math

import numpy as np

# MuJoCo's fluidcoef default: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift.
FLUIDCOEF = (0.5, 0.25, 1.5, 1.0, 1.0)

# The added-mass integral runs over l in [0, inf); MuJoCo maps it onto x in [0, 1] with l = x^3 / (1 - x)^2 and
# takes 15-point Gauss-Kronrod weights there. Its nodes l(x), the Jacobians dl/dx and the weights (to the
# digits MuJoCo uses, so that the coefficients agree bit for bit):
_WEIGHT = (0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236, 0.09517529, 0.10221647, 0.10474107,
           0.10221647, 0.09517529, 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766)
_NODE = (7.865151709349917e-08, 1.7347976913907274e-05, 0.0003548008144506193, 0.002846636252924549,
         0.014094260903596077, 0.053063261727396636, 0.17041978741317773, 0.5, 1.4036301548686991,
         3.9353484827022642, 11.644841677041734, 39.53187807410903, 177.5711362220801, 1429.4772912937397,
         54087.416549217705)
_DNODE = (5.538677720489877e-05, 0.002080868285293228, 0.016514126520723166, 0.07261900344370877,
          0.23985243401862602, 0.6868318249020725, 1.8551129519182894, 5.0, 14.060031152313941,
          43.28941239611009, 156.58546376397112, 747.9826085305024, 5827.4042950027115, 116754.0197944512,
          25482945.327264845)
_EPS = 1e-14


def semi_axes(gtype, size):
  """The semi-axes of the ellipsoid standing in for a geom (MuJoCo's mju_geomSemiAxes)."""
  if gtype == "sphere":
    return size[0], size[0], size[0]
  if gtype == "capsule":
    return size[0], size[0], size[1] + size[0]
  if gtype == "cylinder":
    return size[0], size[0], size[1]
  return size[0], size[1], size[2]


def _kappa(a, b, c):
  """Added-mass coefficient along semi-axis a of the ellipsoid (a, b, c): a^-2 times the integral over l >= 0 of
  abc / ((a^2 + l)^3 (b^2 + l) (c^2 + l))^(1/2), with l scaled by (a^3 b c)^(2/5) to keep the sum well
  conditioned."""
  ia, ib, ic = 1.0 / (a * a), 1.0 / (b * b), 1.0 / (c * c)
  scale = math.pow(a * a * a * b * c, 0.4)
  total = 0.0
  for node, dnode, weight in zip(_NODE, _DNODE, _WEIGHT):
    lam = scale * node
    fa = 1 + lam * ia
    total += scale * dnode / (fa * math.sqrt(fa * (1 + lam * ib) * (1 + lam * ic))) * weight
  return total * ia


def _inertia_factor(b, c, kb, kc):
  """The factor of the virtual moment of inertia about the axis normal to semi-axes b and c (signs of numerator
  and denominator agree; both taken absolute, the denominator kept off zero)."""
  diff = b * b - c * c
  return diff * diff * abs(kc - kb) / max(_EPS, abs(2 * diff + (b * b + c * c) * (kb - kc)))


def geom_fluid(gtype, size, coef):
  """The 12 geom_fluid entries of an ellipsoid-model geom of type ``gtype`` with the compiled ``size``."""
  dx, dy, dz = semi_axes(gtype, size)
  volume = 4.0 / 3.0 * math.pi * dx * dy * dz
  kx, ky, kz = _kappa(dx, dy, dz), _kappa(dy, dz, dx), _kappa(dz, dx, dy)
  mass = [volume * k / max(_EPS, 2 - k) for k in (kx, ky, kz)]
  inertia = [volume * _inertia_factor(dy, dz, ky, kz) / 5, volume * _inertia_factor(dz, dx, kz, kx) / 5,
             volume * _inertia_factor(dx, dy, kx, ky) / 5]
  return np.array([1.0, *coef, *mass, *inertia])
