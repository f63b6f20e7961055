"""MjModel: the compiled model as the `mujoco` bindings present it, with its constructors from files.

A ``containers.Model`` is what the compilers build; ``MjModel`` adds the bindings' static constructors, which run
the compilers (``mjcf``) or the binary reader (``binary``). Those sit above ``containers``, so the constructors
live here, one layer above both.
"""

from mjgym.physics import binary
from mjgym.physics import derivative
from mjgym.physics import mjcf
from mjgym.physics.containers import Model


class MjModel(Model):
  """A compiled model (``mjModel``): sizes, options and per-object arrays, read-only while simulating.

  Every field of ``types.MODEL_FIELDS`` is an attribute: sizes are ints, the rest numpy arrays of the shapes
  in the table (``body_pos`` (nbody, 3) m, ``body_quat`` (nbody, 4), ``actuator_gear`` (nu, 6), ...);
  ``opt`` holds the options. ``_struct`` is the same data as a numba struct for compiled kernels.
  """

  @property
  def nC(self):  # pylint: disable=invalid-name
    """Nonzeros of the inertia matrix in MuJoCo 4's reduced compressed row layout (``d.M``, mjd_inverseFD's DmDq)."""
    return len(derivative.mass_csr_index(self))

  @classmethod
  def _adopt(cls, model):
    """``model`` (a Model) as an MjModel: the same arrays and names."""
    return cls(model._fields, model._names, model.source)  # pylint: disable=protected-access

  @staticmethod
  def from_xml_path(filename, assets=None):
    """Compiles an MJCF file into a model."""
    return MjModel._adopt(mjcf.load_path(filename, assets=assets))

  @staticmethod
  def from_binary_path(filename, assets=None):
    """Loads a model saved by ``mj_saveModel`` (mjgym's own binary format), without the MJCF compiler;
    ``assets`` may map the file name to its bytes."""
    if assets and filename in assets:
      return MjModel._adopt(binary.from_bytes(assets[filename], str(filename)))
    return MjModel._adopt(binary.load(filename))

  @staticmethod
  def from_xml_string(xml, assets=None):
    """Compiles an MJCF string into a model; ``assets`` maps file names to bytes for includes and meshes."""
    return MjModel._adopt(mjcf.load_string(xml, assets=assets))


__all__ = ["MjModel"]
