"""Every page on the deal graphiti itself wrote (tests/support/graphiti_deal.py), through AppTest: with the
deal selected in the sidebar each page renders with no exception and no error, and shows the deal's content (the
Timeline's invalidation audit finds what retired each of graphiti's two retirements, Evidence shows a restatement
with its superseded version);
then the same walk with the graph attached read-only (RETRIEVAL_LAB_READ_ONLY), the graph byte-for-byte unchanged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.lab import Lab
from pipeline.query_sets.sets import delete_query_set
from tests.app.conftest import APP, finish_sweep, no_errors, open_page
from tests.app.test_read_only_gate import WHOLE_GRAPH, _fresh_lab
from tests.support.dump import dump_deal
from tests.support.graphiti_deal import (
    CIM_REVENUE,
    RESTATED_REVENUE,
    REVOLVER,
    UPSIZED_REVOLVER,
    GraphitiDeal,
    graphiti_deal,  # noqa: F401 (the session fixture)
)
from tests.support.shown import shown as displayed

QUERY = "What was Acme Analytics' FY2025 revenue?"
SET_NAME = "graphiti walk"
READ_ONLY_SET = "graphiti walk, imported read-only"


@pytest.fixture(scope="module")
async def acme(
    lab: Lab,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[str]:
    """The graphiti deal, with a small query set whose qrels name fact uuids read from the graph (removed after
    the module: other tests expect the deal's own sets only)."""
    group = graphiti_deal.group_id
    facts = {row["fact"]: row["uuid"] for row in await lab.backend.cypher.facts(group)}
    folder = tmp_path_factory.mktemp("walk-set")
    queries = [
        {"_id": "rev", "text": QUERY},
        {"_id": "revolver", "text": "How large is the Harbor Bank revolving credit facility?"},
    ]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    qrels = [("rev", facts[RESTATED_REVENUE]), ("revolver", facts[UPSIZED_REVOLVER])]
    (folder / "qrels.tsv").write_text("".join(f"{q}\t{u}\t2\n" for q, u in qrels), encoding="utf-8")
    assert await asyncio.to_thread(main, ["import-queries", str(folder), "--group", group, "--name", SET_NAME]) == 0
    yield group
    for name in (SET_NAME, READ_ONLY_SET):
        delete_query_set(lab.store, group, name)


def page(name: str, group: str) -> AppTest:
    return open_page(AppTest.from_file(APP, default_timeout=60), f"app_pages/{name}.py", group)


def texts(app: AppTest, *kinds: str) -> str:
    return "\n".join(displayed(str(e.value)) for kind in kinds for e in app.get(kind))


def frame_with(app: AppTest, column: str):
    return next(d.value for d in app.dataframe if column in d.value.columns)


def walk_explore(group: str) -> None:
    compare = page("compare", group)
    compare.text_input(key="compare.q").input(QUERY).run()
    no_errors(compare)
    shown = texts(compare, "markdown", "caption")
    assert RESTATED_REVENUE in shown
    assert "audited_financials.pdf, p. 12, chunk 3" in shown and "cim.pdf, p. 11" in shown  # from source_description

    scores = page("scores", group)
    scores.text_input(key="scores.q").input(QUERY).run()
    no_errors(scores)
    table = frame_with(scores, "BM25 rank")
    assert table["BM25 rank"].notna().any()  # BM25 finds facts in a group whose id has a hyphen
    assert table["Reranker score"].notna().all()

    evidence = page("evidence", group)  # opens on the newest fact that replaced another: a restatement
    versions = frame_with(evidence, "Valid until")
    assert [v for v in versions["Fact"]][-1] in (RESTATED_REVENUE, UPSIZED_REVOLVER)
    assert list(versions["Status"]) == ["superseded", "this fact · current"]
    assert "Acme Analytics" in texts(evidence, "markdown")  # an entity of it, named

    timeline = page("timeline", group)
    changes = frame_with(timeline, "Old fact")
    assert set(zip(changes["Old fact"], changes["New fact"], strict=True)) == {
        (CIM_REVENUE, RESTATED_REVENUE),
        (REVOLVER, UPSIZED_REVOLVER),
    }
    assert set(changes["Link"]) == {"inferred"}  # from graphiti's dates, no attribute of ours
    audit = frame_with(timeline, "Retired fact")  # the invalidation audit: each retirement's retiring fact
    assert set(zip(audit["Retired fact"], audit["Most likely retired by"], strict=True)) == {
        (CIM_REVENUE, RESTATED_REVENUE),
        (REVOLVER, UPSIZED_REVOLVER),
    }
    assert set(audit["Warning signs"]) == {"none"} and set(audit["Found from"]) == {"the retiring write's facts"}
    timeline.segmented_control(key="timeline.mode").set_value("relation").run()
    timeline.selectbox(key="timeline.relation").set_value("REPORTED_REVENUE").run()
    timeline.date_input(key="timeline.as_of").set_value(date(2026, 2, 1)).run()
    no_errors(timeline)
    true_then = frame_with(timeline, "Source")
    assert list(true_then["Fact"]) == [CIM_REVENUE]  # before the restatement: the old figure
    since = frame_with(timeline, "Change")
    assert set(since[since["Change"] == "new"]["Fact"]) >= {RESTATED_REVENUE}


def walk_evaluate(group: str, queue: str) -> None:
    evaluate = page("evaluate", group)
    sets = frame_with(evaluate, "Query types")
    assert SET_NAME in " ".join(map(str, sets.to_numpy().ravel()))
    evaluate.multiselect(key="evaluate.candidates").set_value([10])
    evaluate.multiselect(key="evaluate.top_k").set_value([5])
    evaluate.number_input(key="evaluate.sample").set_value(2)
    evaluate.run()
    evaluate.button(key="evaluate.run").click()
    evaluate.run()
    no_errors(evaluate)
    finish_sweep(evaluate, group)  # the sweep is a job: it ends in the background, saved, then shown
    no_errors(evaluate)
    assert len(frame_with(evaluate, "Recommended")) >= 2

    spot = page("spotcheck", group)
    spot.text_input(key="spotcheck.reviewer").input("Walker").run()
    spot.text_input(key="spotcheck.new.name").input(queue)
    spot.selectbox(key="spotcheck.new.source").set_value("query_set")
    spot.number_input(key="spotcheck.new.size").set_value(2)
    spot.number_input(key="spotcheck.new.queries").set_value(2)
    spot.selectbox(key="spotcheck.new.reranker").set_value("none")
    spot.button(key="spotcheck.new.build").click().run()
    no_errors(spot)
    assert any("Built queue" in s.value for s in spot.success)

    latency = page("latency", group)
    latency.selectbox(key="latency.deal").set_value(group).run()
    assert int(next(m.value for m in latency.metric if m.label == "Runs")) >= 2
    history = page("history", group)
    history.selectbox(key="history.deal").set_value(group)
    history.text_input(key="history.text").input(QUERY).run()
    no_errors(history)
    assert QUERY in set(frame_with(history, "Query")["Query"])


def walk_admin(group: str) -> None:
    merges = page("merges", group)
    assert not merges.dataframe or "Merged by" not in merges.dataframe[0].value.columns  # no empty table
    assert any("No merges recorded on this deal" in i.value for i in merges.info)
    candidates = frame_with(merges, "Auto merge")
    assert ("Acme Analytics", "Acme Analytics, Inc.") in set(
        zip(candidates["Canonical (suggested)"], candidates["Alias"], strict=True)
    )

    deals = page("deals", group)
    row = frame_with(deals, "Vector dim").set_index("Deal").loc[group]
    assert (row["Source"], int(row["Vector dim"]), row["Embedder match"]) == ("graphiti", 384, "yes")
    assert (int(row["Facts"]), int(row["Superseded facts"]), int(row["Episodes"])) == (19, 2, 12)


def test_every_page_on_the_graphiti_deal(lab: Lab, acme: str) -> None:
    walk_explore(acme)
    walk_evaluate(acme, "walk queue")
    walk_admin(acme)


@pytest.fixture
def read_only_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RETRIEVAL_LAB_READ_ONLY", "1")
    _fresh_lab()
    yield
    monkeypatch.undo()
    _fresh_lab()


async def test_every_page_read_only_leaves_the_graph_unchanged(lab: Lab, acme: str, read_only_env: None) -> None:
    before = await dump_deal(lab.backend, acme)
    await asyncio.to_thread(walk_explore, acme)
    await asyncio.to_thread(walk_evaluate, acme, "walk queue, read-only")
    await asyncio.to_thread(walk_admin, acme)
    merges = await asyncio.to_thread(page, "merges", acme)
    assert any(i.value == WHOLE_GRAPH for i in merges.main.info)
    assert await dump_deal(lab.backend, acme) == before
