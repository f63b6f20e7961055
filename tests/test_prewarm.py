"""``mjgym compile``'s plan: which worker jobs it starts and what each waits for."""

import pytest

from mjgym import prewarm


def test_plan_orders_jobs_by_what_they_link():
  jobs = dict(prewarm.plan(list(prewarm.DEFAULT_TARGETS), 2))
  stages = ["stages:1:0:2", "stages:1:1:2"]
  assert list(jobs)[:2] == stages and jobs[stages[0]] == [] and jobs[stages[1]] == []
  assert jobs["single"] == stages and jobs["single-ccd"] == stages
  assert jobs["batch"] == ["single"] and jobs["batch-ccd"] == ["single-ccd"]
  assert jobs["envs"] == ["single", "batch"]


def test_plan_without_ccd_targets_shares_only_closed_form_stages():
  jobs = dict(prewarm.plan(["single", "envs"], 3))
  assert [j for j in jobs if j.startswith("stages")] == ["stages:0:0:3", "stages:0:1:3", "stages:0:2:3"]
  assert jobs["envs"] == ["single"]
  assert dict(prewarm.plan(["render"], 2)) == {"render": []}


def test_unknown_target_is_a_clear_error():
  with pytest.raises(ValueError, match="unknown target.*the targets are single"):
    prewarm.run(["single", "everything"])
