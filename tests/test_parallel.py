"""The compile helper (_parallel.py): how the pipeline's stage kernels are shared among compile processes."""

from mjgym.physics import _parallel


def test_stage_shares_cover_every_stage_once_and_balance():
  for ccd in (False, True):
    stages = _parallel._stages(ccd)  # pylint: disable=protected-access
    shares = _parallel.share(2, ccd, first=_parallel.STRUCTS_SECONDS)
    assert sorted(i for s in shares for i in s) == list(range(len(stages)))
    loads = [sum(stages[i][2] for i in s) for s in shares]
    loads[0] += _parallel.STRUCTS_SECONDS
    assert max(loads) - min(loads) <= max(c for _, _, c in stages)
