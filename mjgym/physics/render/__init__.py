"""Headless renderer: MuJoCo's default look from numpy + numba, no OpenGL (RGB, depth, segmentation)."""

# pylint: disable=g-importing-member
from mjgym.physics.render.renderer import Renderer
from mjgym.physics.render.scene import MjvCamera
from mjgym.physics.render.scene import MjvOption
from mjgym.physics.render.scene import default_free_camera
