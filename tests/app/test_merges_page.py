"""The Entity merges page through AppTest: demo merges, candidates, PR chart, admin actions on its own deal."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from dashboard.merges import data as merges_data
from pipeline.audit import audit_log
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.merges import candidates as merge_candidates
from pipeline.merges.candidates import CandidateReport
from pipeline.merges.operating import RULES
from pipeline.merges.records import read_merge_records
from tests.app.conftest import no_errors, open_page
from tests.conftest import ADMIN_SECRET
from tests.support.dump import dump_deal
from tests.support.tables import assert_tidy

PAGE = "app_pages/merges.py"
DEAL = "demo_merges_app"


@pytest.fixture(scope="module")
async def own_deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL, force=True)
    return DEAL


def unlock(app: AppTest) -> None:
    app.text_input(key="admin.name").input("Ana")
    app.text_input(key="admin.secret").input(ADMIN_SECRET).run()
    no_errors(app)


# AppTest does not expose a dataframe's key: each table is known by a column only it has
MARKERS = {
    "merges.table": "Facts brought",
    "merges.brought": "Alias was",
    "merges.candidates": "Name match",
    "merges.rejected": "Rejected by",
}


def table(app: AppTest, key: str) -> pd.DataFrame:
    return next(d.value for d in app.dataframe if MARKERS[key] in d.value.columns)


def test_page_lists_the_demo_merges_candidates_and_pr_chart(app: AppTest) -> None:
    open_page(app, PAGE)
    assert [t.value for t in app.title] == ["Entity merges"]
    merges = table(app, "merges.table")
    assert len(merges) == 9
    assert set(merges["Alias"]) >= {"HFS", "Halcyon Freight Corp.", "Marcus O. Okafor", "D. Whitfield"}
    assert set(merges["Method"]) == {"exact", "fuzzy", "semantic", "manual"}
    assert (merges[merges["Alias"] == "HFS"]["Canonical"] == "Halcyon Freight Systems, Inc.").all()
    assert str(merges["Merged (UTC)"].dt.tz) == "UTC"
    brought = table(app, "merges.brought")  # the facts each alias brought
    assert set(brought["Alias"]) == set(merges["Alias"]) and len(brought) == merges["Facts brought"].sum()
    hfs = brought[brought["Alias"] == "HFS"]
    assert len(hfs) == 4 and (hfs["Canonical"] == "Halcyon Freight Systems, Inc.").all()
    candidates = table(app, "merges.candidates")
    assert {"Name match", "Shingle Jaccard", "Name cosine", "Score", "Auto merge"} <= set(candidates.columns)
    assert len(candidates) > 5 and candidates["Score"].is_monotonic_decreasing
    assert set(candidates["Auto merge"]) == {True, False}
    assert not set(candidates["Alias"]) & {"HFS", "Halcyon Freight Corp."}  # merged aliases are left out
    # shared neighbours: the engine's count for each pair ("Revenue" and "Net Revenue" share two)
    report = runtime.run(runtime.get_lab().merges.find_candidates("demo"))
    shared = runtime.run(runtime.get_lab().merges.shared_neighbours("demo", list(report.candidates)))
    assert list(candidates["Shared neighbours"]) == [
        shared[(c.canonical.uuid, c.alias.uuid)] for c in report.candidates
    ]
    for frame in (merges, brought, candidates):
        assert_tidy(frame)
    assert len(app.get("plotly_chart")) == 1
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Precision at 0.85 (default)"] == "100%"
    assert metrics["Recall at 0.85 (default)"] == "54%"  # 7 of the 13 true duplicates
    assert metrics["Wrong merges at 0.85"] == "0"
    assert any("Read-only" in i.value for i in app.info)  # no admin: no actions
    assert not any(b.key == "merges.merge" for b in app.button)


def test_search_and_threshold(app: AppTest) -> None:
    open_page(app, PAGE)
    app.text_input(key="merges.search").input("okafor").run()
    no_errors(app)
    assert list(table(app, "merges.table")["Alias"]) == ["Marcus O. Okafor"]
    assert set(table(app, "merges.brought")["Alias"]) == {"Marcus O. Okafor"}
    app.text_input(key="merges.search").input("graphiti-dedup").run()
    assert len(table(app, "merges.table")) == 8  # all but the manual merge by priya.nair
    at_default = table(app, "merges.candidates")["Auto merge"].sum()
    app.slider(key="merges.threshold").set_value(0.7).run()
    no_errors(app)
    assert table(app, "merges.candidates")["Auto merge"].sum() > at_default
    metrics = {m.label: m.value for m in app.metric}
    assert "Recall at 0.70 (slider)" in metrics and metrics["Recall at 0.85 (default)"] == "54%"


def test_a_link_opens_the_same_search_and_threshold(app: AppTest) -> None:
    app.query_params.update({"merges.search": "okafor", "merges.threshold": "0.7"})
    open_page(app, PAGE)
    assert app.text_input(key="merges.search").value == "okafor"
    assert list(table(app, "merges.table")["Alias"]) == ["Marcus O. Okafor"]
    assert app.slider(key="merges.threshold").value == 0.7
    assert "Recall at 0.70 (slider)" in {m.label for m in app.metric}


async def test_admin_merge_reject_and_undo(app: AppTest, lab: Lab, own_deal: str) -> None:
    before = await dump_deal(lab.backend, own_deal)
    open_page(app, PAGE, own_deal)
    unlock(app)
    pairs = app.selectbox(key="merges.pair").options
    greyfield = next(p for p in pairs if "Greyfield Venture Partners → Greyfield Ventures" in p)  # as undo says
    app.selectbox(key="merges.pair").set_value(greyfield).run()
    no_errors(app)
    canonical = app.selectbox(key="merges.canonical")
    assert canonical.index is not None and canonical.options[canonical.index].startswith("Greyfield Ventures (")
    app.button(key="merges.merge").click().run()
    assert not any(r.merged_by == "Ana" for r in await read_merge_records(lab.backend, own_deal))  # asked first
    assert [w.value for w in app.main.warning] == [
        "Merge 'Greyfield Venture Partners' into 'Greyfield Ventures': 2 facts move to 'Greyfield Ventures'."
    ]
    app.button(key="merges.merge.confirm").click().run()
    no_errors(app)
    assert any("Merged 'Greyfield Venture Partners' into 'Greyfield Ventures'" in s.value for s in app.success)
    assert len(table(app, "merges.table")) == 10
    record = next(r for r in await read_merge_records(lab.backend, own_deal) if r.merged_by == "Ana")
    assert record.method == "manual" and len(record.moved_facts) == 2
    assert audit_log(lab.store, own_deal, "merge")[0].action == "merge"
    assert not any(p and "Greyfield Venture Partners" in p for p in app.selectbox(key="merges.pair").options)
    assert app.selectbox(key="merges.pair").value is None  # the merged pair is not left picked

    reilly = next(p for p in app.selectbox(key="merges.pair").options if p and "Reilly" in p)
    app.selectbox(key="merges.pair").set_value(reilly).run()
    app.button(key="merges.reject").click().run()
    no_errors(app)
    assert any("will not be suggested again" in s.value for s in app.success)
    assert not any(p and "Reilly" in p for p in app.selectbox(key="merges.pair").options)
    assert not table(app, "merges.candidates")["Alias"].str.contains("Reilly").any()
    assert len(table(app, "merges.rejected")) == 1

    app.selectbox(key="merges.undo_pick").set_value(record.uuid).run()
    app.button(key="merges.undo").click().run()
    app.button(key="merges.undo.confirm").click().run()
    no_errors(app)
    assert any("Undid the merge of 'Greyfield Venture Partners'" in s.value for s in app.success)
    assert len(table(app, "merges.table")) == 9
    assert await dump_deal(lab.backend, own_deal) == before  # rejecting writes no graph change
    assert [e.action for e in audit_log(lab.store, own_deal, "merge")[:3]] == ["merge.undo", "merge.reject", "merge"]


async def test_a_refused_merge_shows_one_clear_message(app: AppTest, lab: Lab, own_deal: str) -> None:
    before = await dump_deal(lab.backend, own_deal)
    open_page(app, PAGE, own_deal)
    unlock(app)
    app.selectbox(key="merges.canonical").select_index(0)
    app.selectbox(key="merges.alias").select_index(0).run()
    app.button(key="merges.merge").click().run()
    assert not app.exception
    assert [e.value for e in app.error] == ["An entity cannot be merged into itself: pick two different entities."]
    assert await dump_deal(lab.backend, own_deal) == before


async def test_widget_changes_reuse_the_candidates_and_admin_actions_refresh_them(
    app: AppTest, lab: Lab, own_deal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring every entity pair runs once per deal state: search, threshold, unlocking and picking a pair
    reuse it; a merge and its undo each rescore, and the tables show the fresh candidates."""
    scored: list[str] = []
    find_candidates = merge_candidates.find_candidates

    async def counted(lab: Lab, group_id: str, *args: Any, **kwargs: Any) -> CandidateReport:
        scored.append(group_id)
        return await find_candidates(lab, group_id, *args, **kwargs)

    monkeypatch.setattr(merge_candidates, "find_candidates", counted)  # the call lab.merges makes
    merges_data.clear()
    open_page(app, PAGE, own_deal)
    assert scored.count(own_deal) == 1
    assert "Greyfield Venture Partners" in set(table(app, "merges.candidates")["Alias"])
    app.text_input(key="merges.search").input("okafor").run()
    app.slider(key="merges.threshold").set_value(0.7).run()
    unlock(app)
    greyfield = next(p for p in app.selectbox(key="merges.pair").options if p and "Greyfield Venture Partners" in p)
    app.selectbox(key="merges.pair").set_value(greyfield).run()
    no_errors(app)
    assert scored.count(own_deal) == 1  # five widget changes, no rescoring

    app.button(key="merges.merge").click().run()
    app.button(key="merges.merge.confirm").click().run()
    no_errors(app)
    assert any("Merged 'Greyfield Venture Partners'" in s.value for s in app.success)
    assert scored.count(own_deal) == 2
    assert "Greyfield Venture Partners" not in set(table(app, "merges.candidates")["Alias"])  # a merged alias

    record = next(r for r in await read_merge_records(lab.backend, own_deal) if r.alias_name.startswith("Greyfield"))
    app.selectbox(key="merges.undo_pick").set_value(record.uuid).run()
    app.button(key="merges.undo").click().run()
    app.button(key="merges.undo.confirm").click().run()
    no_errors(app)
    assert scored.count(own_deal) == 3
    assert "Greyfield Venture Partners" in set(table(app, "merges.candidates")["Alias"])


def test_the_operating_point_keeps_the_precision_asked_and_hands_over_graphiti_s_threshold(app: AppTest) -> None:
    open_page(app, PAGE)
    lab = runtime.get_lab()
    bundled = runtime.run(lab.ingest.labelled_evaluation("demo"))
    assert bundled is not None
    points = runtime.run(lab.merges.operating_points("demo", bundled.pairs))
    assert points is not None
    for target in (0.95, 0.8):
        app.number_input(key="merges.precision").set_value(target).run()
        no_errors(app)
        metrics = {m.label: m.value for m in app.metric}
        for rule, what in RULES.items():
            point = points.at_precision(rule, target)
            assert metrics[what] == ("—" if point is None else f"{point.threshold:.2f}")
        chosen = points.at_precision("graphiti", target)
        assert chosen is not None
        (code,) = app.code
        assert f"dedup_helpers._FUZZY_JACCARD_THRESHOLD = {chosen.threshold:.2f}" in code.value
