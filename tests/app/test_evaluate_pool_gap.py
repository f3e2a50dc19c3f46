"""Evaluate on pooled judgments where the best lead rests on unjudged facts: the sentence says so, the table flags
the setting, and the pool that settles it is one button away (it builds a real pool on the demo deal)."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from pipeline.evaluation.experiments import save_experiment
from pipeline.evaluation.judgments import EvalQuery, EvalSet
from pipeline.evaluation.records import SweepResult, SweepSpec, SweepStats
from pipeline.evaluation.sweep_scores import SettingRankings, score_settings
from pipeline.lab import Lab
from pipeline.pools.repo import list_pools
from pipeline.retrieval.recipes import DEFAULT_RECIPE as R
from tests.app.conftest import no_errors, open_page, show_picker

JUDGED = [f"a{i}" for i in range(10)]  # judged from the reranked top 10: one relevant, nine not
UNJUDGED = [f"u{i}" for i in range(10)]


def pooled_lead(group_id: str) -> SweepResult:
    """12 queries; the reranked top 10 is every judged fact (nDCG 1), the baseline's top 10 facts nobody judged
    (nDCG 0). Without the unjudged facts both lists are the same: the lead is all coverage."""
    spec = SweepSpec(group_id, candidates=(50,), top_ks=(10,), rerankers=("none", "local")).validate()
    queries = tuple(EvalQuery(f"q{i}", f"query {i}", "factual") for i in range(12))
    qrels = {q.id: {u: (2 if u == "a0" else 0) for u in JUDGED} for q in queries}
    ranked = {
        (R, "local", 50): [*JUDGED, *UNJUDGED],
        (R, "none", 50): [*UNJUDGED, *JUDGED],
    }
    acc = {
        key: SettingRankings(rankings={q.id: list(r) for q in queries}, latency={q.id: 20.0 for q in queries})
        for key, r in ranked.items()
    }
    chosen = EvalSet("labelled", "labelled", group_id, queries, qrels)
    facts = {u: f"fact {u}" for u in (*JUDGED, *UNJUDGED)}
    settings, rows = score_settings(SimpleNamespace(settings=None), spec, chosen, acc, facts)  # type: ignore[arg-type]
    return SweepResult(
        spec, chosen.summary(), "2026-11-28", tuple(settings), tuple(rows), {q.id: (q.text, q.type) for q in queries},
        qrels, facts, SweepStats(len(queries), 0, 0, 0, 0, 0.0),
    )  # fmt: skip


def test_a_lead_resting_on_unjudged_facts_offers_the_pool_that_settles_it(app: AppTest, lab: Lab) -> None:
    result = pooled_lead("demo")
    assert result.judgment_kind == "pooled"
    rec = result.recommendation()
    assert not rec.beats_baseline and rec.unsure == (f"{R} local N=50 k=10",)
    exp_id = save_experiment(lab.store, result, "pooled lead on unjudged facts")
    pools_before = len(list_pools(lab.store, "demo"))

    open_page(app, "app_pages/evaluate.py")
    show_picker(app).set_value(exp_id).run()
    no_errors(app)
    said = next(i.value for i in app.info if "Recommended:" in i.value).replace("\\", "").replace("\u200b", "")
    assert "but its lead rests on unjudged facts: it ties on nDCG@k'" in said
    assert "with 100% of its top k judged against the baseline's 0%" in said
    assert "Judge the 120 unjudged pairs in the two top k" in said  # 12 queries x the baseline's 10 facts
    command = next(c.value for c in app.code if "pool build" in c.value)
    assert command == (
        f"python -m pipeline pool build --group demo --setting {R}:local:50:10 --setting {R}:none:50:10 --by NAME"
    )
    table = next(d.value for d in app.dataframe if "Coverage" in d.value.columns)
    flagged = dict(zip(table["Setting"], table["Coverage"], strict=True))
    assert flagged[f"{R} local N=50 k=10"] == "lead rests on unjudged facts"

    build = app.button(key="evaluate.pool_gap.build")
    build.click().run()  # no name: refused in one line, nothing built
    assert any("Enter your name" in e.value for e in app.error)
    assert len(list_pools(lab.store, "demo")) == pools_before
    app.text_input(key="evaluate.pool_gap.by").set_value("ana").run()
    app.button(key="evaluate.pool_gap.build").click().run()
    no_errors(app)
    built = next(s.value for s in app.success if "Built pool" in s.value)
    pools = list_pools(lab.store, "demo")
    assert len(pools) == pools_before + 1
    pool = pools[-1] if pools[-1].queue_id > pools[0].queue_id else pools[0]
    assert f"**#{pool.queue_id}**: {pool.pairs:,} pairs to judge" in built
    assert pool.settings == (f"{R} + local, N=50, k=10", f"{R} + none, N=50, k=10") and pool.created_by == "ana"
