"""Constraint islands: groups of kinematic trees that the constraint rows couple (MuJoCo's mj_island).

Two trees are in one island when some efc row moves both (a contact between them, a weld, a tendon or joint
coupling across them); trees no row touches are in none. Islands are independent problems: the solvers run
once per island, each with its own iteration count and stopping test, as MuJoCo does unless the ``island``
disable flag is set. Islands are numbered by their smallest tree, their dofs and rows keep the global order:
``map_idof2dof[island_idofadr[i]:][:island_nv[i]]`` and ``map_iefc2efc[island_iefcadr[i]:][:island_nefc[i]]``.
"""

from numba import njit

from mjgym.physics.constants import CNSTR_CONTACT_ELLIPTIC
from mjgym.physics.constants import CNSTR_CONTACT_FRICTIONLESS
from mjgym.physics.constants import CNSTR_EQUALITY
from mjgym.physics.constants import CNSTR_FRICTION_DOF
from mjgym.physics.constants import CNSTR_FRICTION_TENDON
from mjgym.physics.constants import CNSTR_LIMIT_JOINT
from mjgym.physics.constants import DSBL_ISLAND
from mjgym.physics.types import EqType
from mjgym.physics.types import ObjType


@njit(cache=True, error_model="numpy")
def _root(parent, tree):
  """Root of ``tree``'s set, compressing the path to it."""
  root = tree
  while parent[root] != root:
    root = parent[root]
  while parent[tree] != root:
    nxt = parent[tree]
    parent[tree] = root
    tree = nxt
  return root


@njit(cache=True, error_model="numpy")
def _join(parent, t1, t2):
  """Marks both trees constrained and merges their sets; -1 is the world. The smaller root stays root, so
  a set's root is its smallest tree."""
  if t1 < 0:
    t1 = t2
  if t2 < 0:
    t2 = t1
  if parent[t1] < 0:
    parent[t1] = t1
  if parent[t2] < 0:
    parent[t2] = t2
  r1 = _root(parent, t1)
  r2 = _root(parent, t2)
  if r1 < r2:
    parent[r2] = r1
  elif r2 < r1:
    parent[r1] = r2


@njit(cache=True, error_model="numpy")
def _body_of(m, objtype, objid):
  return m.site_bodyid[objid] if objtype == ObjType.SITE else objid


@njit(cache=True, error_model="numpy")
def _row_trees(m, d, i, parent):
  """Joins the trees row ``i`` moves; returns the row's tree (the first one that is not the world), or -2 if
  the row moves nothing."""
  ctype = d.efc_type[i]
  oid = d.efc_id[i]
  t1 = t2 = -2
  if ctype == CNSTR_FRICTION_DOF:
    t1 = m.dof_treeid[oid]
  elif ctype == CNSTR_LIMIT_JOINT:
    t1 = m.dof_treeid[m.jnt_dofadr[oid]]
  elif CNSTR_CONTACT_FRICTIONLESS <= ctype <= CNSTR_CONTACT_ELLIPTIC and d.contact_geom1[oid] >= 0 \
      and d.contact_geom2[oid] >= 0:
    t1 = m.body_treeid[m.geom_bodyid[d.contact_geom1[oid]]]
    t2 = m.body_treeid[m.geom_bodyid[d.contact_geom2[oid]]]
  elif ctype == CNSTR_EQUALITY and (m.eq_type[oid] == EqType.CONNECT or m.eq_type[oid] == EqType.WELD):
    t1 = m.body_treeid[_body_of(m, m.eq_objtype[oid], m.eq_obj1id[oid])]
    t2 = m.body_treeid[_body_of(m, m.eq_objtype[oid], m.eq_obj2id[oid])]
  if t1 != -2:
    if t1 < 0 and t2 < 0:
      return -2
    _join(parent, t1, t2 if t2 != -2 else -1)
    return t1 if t1 >= 0 else t2
  # any other row (tendons, joint couplings, flex contacts, whose elements span several vertex trees): the trees
  # of the dofs its Jacobian touches
  first = -2
  prev = -1
  k = 0
  while k < m.nv:
    if d.efc_J[i, k] != 0.0:
      tree = m.dof_treeid[k]
      if first == -2:
        first = tree
        _join(parent, tree, -1)
      else:
        _join(parent, prev, tree)
      prev = tree
      k = m.tree_dofadr[tree] + m.tree_dofnum[tree]
    else:
      k += 1
  return first


@njit(cache=True, error_model="numpy")
def _join_elastic_flexes(m, parent):
  """Flex elasticity couples all the vertices of a flex with no constraint row saying so: as MuJoCo 4 does, the
  trees of each flex with stretch or bending stiffness join one island (when there are rows at all)."""
  for f in range(m.nflex):
    if m.flex_rigid[f] or m.flex_dim[f] < 2:
      continue
    adr = m.flex_stiffnessadr[f]
    if m.flex_bendingadr[f] < 0 and (adr < 0 or m.flex_stiffness[adr] == 0.0):
      continue
    first = -1
    for v in range(m.flex_vertadr[f], m.flex_vertadr[f] + m.flex_vertnum[f]):
      tree = m.body_treeid[m.flex_vertbodyid[v]]
      if tree < 0 or tree == first:
        continue
      if first < 0:
        first = tree
      else:
        _join(parent, first, tree)


@njit(cache=True, error_model="numpy")
def island(m, d):
  """nisland and the island maps of the current efc rows (nisland = 0: one problem over all rows)."""
  nefc = d.nefc[0]
  d.nisland[0] = 0
  d.nidof[0] = 0
  if nefc == 0 or m.opt_disableflags[0] & DSBL_ISLAND:
    return
  parent = d.tree_island  # union-find links first, island ids after
  parent[:] = -1
  efc_tree = d.efc_island  # each row's tree first, its island after
  for i in range(nefc):
    # the next row of the same constraint moves the same trees (not so the edges of one flex equality)
    if (i > 0 and d.efc_type[i] == d.efc_type[i - 1] and d.efc_id[i] == d.efc_id[i - 1]
        and not (d.efc_type[i] == CNSTR_EQUALITY and m.eq_type[d.efc_id[i]] == EqType.FLEX)):
      efc_tree[i] = efc_tree[i - 1]
      continue
    efc_tree[i] = _row_trees(m, d, i, parent)
    if efc_tree[i] < 0:
      return  # a row that moves nothing: no partition, solve everything as one problem
  _join_elastic_flexes(m, parent)
  # islands numbered by their smallest tree, which is the root of its set: point every tree at its root,
  # then replace links by ids in tree order (a root comes before the rest of its set)
  for t in range(m.ntree):
    if parent[t] >= 0:
      parent[t] = _root(parent, t)
  nisland = 0
  for t in range(m.ntree):
    r = parent[t]
    if r == t:
      parent[t] = nisland
      nisland += 1
    elif r >= 0:
      parent[t] = parent[r]
  d.nisland[0] = nisland
  _dofs(m, d, nisland)
  _rows(d, nefc, nisland, efc_tree)


@njit(cache=True, error_model="numpy")
def _dofs(m, d, nisland):
  d.island_nv[:nisland] = 0
  for k in range(m.nv):
    isl = d.tree_island[m.dof_treeid[k]]
    d.dof_island[k] = isl
    if isl >= 0:
      d.island_nv[isl] += 1
  adr = 0
  for isl in range(nisland):
    d.island_idofadr[isl] = adr
    adr += d.island_nv[isl]
  nidof = adr
  d.nidof[0] = nidof
  cursor = d.island_cursor  # dofs placed per island so far
  cursor[:nisland] = 0
  free = nidof
  for k in range(m.nv):
    isl = d.dof_island[k]
    if isl >= 0:
      idof = d.island_idofadr[isl] + cursor[isl]
      cursor[isl] += 1
    else:
      idof = free
      free += 1
    d.map_dof2idof[k] = idof
    d.map_idof2dof[idof] = k


@njit(cache=True, error_model="numpy")
def _rows(d, nefc, nisland, efc_tree):
  d.island_ne[:nisland] = 0
  d.island_nf[:nisland] = 0
  d.island_nefc[:nisland] = 0
  for i in range(nefc):
    isl = d.tree_island[efc_tree[i]]
    d.efc_island[i] = isl
    d.island_nefc[isl] += 1
    ctype = d.efc_type[i]
    if ctype == CNSTR_EQUALITY:
      d.island_ne[isl] += 1
    elif ctype == CNSTR_FRICTION_DOF or ctype == CNSTR_FRICTION_TENDON:
      d.island_nf[isl] += 1
  adr = 0
  for isl in range(nisland):
    d.island_iefcadr[isl] = adr
    adr += d.island_nefc[isl]
  cursor = d.island_cursor  # rows placed per island so far
  cursor[:nisland] = 0
  for i in range(nefc):
    isl = d.efc_island[i]
    ic = d.island_iefcadr[isl] + cursor[isl]
    cursor[isl] += 1
    d.map_efc2iefc[i] = ic
    d.map_iefc2efc[ic] = i
