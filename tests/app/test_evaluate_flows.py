"""The product team's Evaluate flows (issue 26) through AppTest: a cancelled sweep's partial experiment opened and
marked partial, and two experiments compared by their recommendations."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.evaluate.jobs_view import MINE
from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.jobs import create_job, request_cancel, run_job
from pipeline.evaluation.jobs.repo import get_job
from pipeline.evaluation.records import SweepCancelled, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from tests.app.conftest import no_errors, open_page, show_picker


def text(values: list[str]) -> str:
    return " ".join(values).replace("\u200b", "").replace("\\", "")


async def test_a_cancelled_sweep_keeps_what_it_finished_as_a_partial_experiment(app: AppTest, lab: Lab) -> None:
    """This session's sweep is cancelled once two queries are done (as its Cancel, or another session's, asks): the
    page opens what it finished, saying everywhere that it is partial, never as a complete run."""
    spec = SweepSpec("demo", candidates=(10, 25), top_ks=(3,), rerankers=("none",), sample=12, seed=1)
    job_id = create_job(lab, spec, "tester")

    def cancel_after_two(done: int, _total: int, _message: str) -> None:
        if done == 2:
            assert request_cancel(lab.store, job_id)

    with pytest.raises(SweepCancelled, match="saved as partial experiment"):
        await run_job(lab, job_id, cancel_after_two)
    job = get_job(lab.store, job_id)
    assert job is not None and job.state == "cancelled" and job.experiment_id is not None
    done, exp_id = job.done, job.experiment_id

    app.session_state[MINE] = job_id  # the job this session started
    open_page(app, "app_pages/evaluate.py")
    no_errors(app)
    assert show_picker(app).value == exp_id  # opened for the session, as a finished one is
    assert app.query_params["evaluate.experiment"] in (str(exp_id), [str(exp_id)])
    said = f"cancelled after {done} of 12 queries"
    assert f"Sweep {said}: the finished queries are saved as partial experiment #{exp_id}." in text(
        [i.value for i in app.info]
    )
    assert f"Partial experiment: {said}." in text([w.value for w in app.warning])
    recommendation = next(i.value for i in app.info if "Recommended:" in i.value)
    assert f"On a partial run ({said}): " in text([recommendation])
    assert not [s for s in app.success if "Recommended:" in s.value]  # never shown as a complete run's win
    label = next(o for o in show_picker(app).options if f"#{exp_id} " in o)
    assert label.startswith(f"PARTIAL ({said}) #{exp_id} ")
    jobs = next(d.value for d in app.dataframe if "Experiment" in d.value.columns).set_index("Job")
    assert jobs.loc[job_id, "State"] == "cancelled" and jobs.loc[job_id, "Experiment"] == f"#{exp_id}"


async def test_compare_experiments_shows_both_recommendations_and_why_they_differ(app: AppTest, lab: Lab) -> None:
    """Two sweeps on the same queries whose grids differ: each side's recommendation (setting, metric with its
    confidence interval, why), and the line naming the grids' difference."""
    narrow = await run_sweep(lab, SweepSpec("demo", candidates=(10, 25), top_ks=(5,), rerankers=("none",), sample=30))
    wide = await run_sweep(
        lab, SweepSpec("demo", candidates=(10, 25, 100), top_ks=(5,), rerankers=("none",), sample=30)
    )
    a = save_experiment(lab.store, narrow, "issue 26 narrow grid")
    b = save_experiment(lab.store, wide, "issue 26 wide grid")
    open_page(app, "app_pages/evaluate.py")
    app.selectbox(key="evaluate.cmp_a").set_value(a)
    app.selectbox(key="evaluate.cmp_b").set_value(b)
    app.run()
    no_errors(app)
    shown = text([m.value for m in app.markdown])
    for which, result in (("A", narrow), ("B", wide)):
        rec = result.recommendation("ndcg@k")
        assert f"{which} recommends {rec.key}" in shown
        assert rec.sentence in text([c.value for c in app.caption])
    assert shown.count("95% CI ") >= 2 and "nDCG@k " in shown
    assert "Different grids (N A 10, 25 vs B 10, 25, 100): each can only recommend a setting its own grid holds." in (
        shown
    )
    assert "Different queries" not in shown  # the same sample of the same set
