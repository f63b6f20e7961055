"""Collision detection: broad phase, filters and narrow-phase colliders that fill ``d.ncon`` and ``d.contact_*``."""

from mjgym.physics.collision import driver
