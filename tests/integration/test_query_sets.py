"""Labelled query sets in the store, for a deal written by graphiti itself: a set whose judgments name fact and
episode uuids, imported with `python -m pipeline import-queries`, evaluated by the sweep; bad ids refused with
nothing written; re-runs idempotent; analysts' verdicts frozen into a set; the demo's stored set is its files'."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.evaluation.judgments import available_eval_sets, load_eval_set
from pipeline.evaluation.records import METRIC_NAMES, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.ingest.demo.seed import QRELS_FILE, QUERIES_FILE, seed_demo
from pipeline.lab import Lab
from pipeline.query_sets import list_query_sets, load_query_set
from pipeline.query_sets.files import keyed_qrels, read_qrels, read_queries
from pipeline.query_sets.verdicts import save_verdicts_as_query_set
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_relevance
from tests.support.graphiti_deal import (
    ARR,
    RESTATED_REVENUE,
    REVOLVER,
    GraphitiDeal,
    graphiti_deal,  # noqa: F401 (the session fixture)
)

SET_NAME = "acme analyst questions"


async def cli(argv: list[str]) -> int:
    """`python -m pipeline ...` in this process, on a thread of its own (it runs its own event loop)."""
    return await asyncio.to_thread(main, argv)


@pytest.fixture(scope="module")
def acme(graphiti_deal: GraphitiDeal) -> str:  # noqa: F811
    """The graphiti-written deal: a deal like any other (discovered from graphiti's own nodes)."""
    return graphiti_deal.group_id


async def _facts(lab: Lab, group: str) -> dict[str, dict]:
    """fact text -> its row (uuid, episodes ...), read from the graph through the dialect."""
    return {row["fact"]: row for row in await lab.backend.cypher.facts(group)}


def _write(folder: Path, queries: list[dict], qrels: list[tuple[str, str, int]], header: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    lines = ["query-id\tcorpus-id\tscore"] if header else []
    lines += [f"{q}\t{d}\t{g}" for q, d, g in qrels]
    (folder / "qrels.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


QUERIES = [
    {"_id": "rev", "text": "What was Acme Analytics' FY2025 revenue?", "type": "factual", "split": "test"},
    {"id": "revolver", "text": "Which bank provides the revolving credit facility?", "type": "entity"},
    {"_id": "arr", "text": "What is the ARR of Acme Insight Cloud?", "type": "factual", "split": "test"},
    {"_id": "ceo", "text": "Who is the chief executive of Acme Analytics?", "type": "entity", "split": "dev"},
    {"_id": "open", "text": "What else should we ask management?", "type": "exploratory"},  # no judgment
]


async def _uuid_keyed_set(lab: Lab, group: str, deal: GraphitiDeal) -> tuple[list, dict[str, dict[str, int]]]:
    """qrels naming fact uuids and episode uuids of the deal, and the fact judgments they must resolve to
    (computed from the graph's own `episodes` lists)."""
    facts = await _facts(lab, group)
    episodes = deal.episode_uuids
    p9, qa18 = episodes["cim.pdf p9"], episodes["Q&A 18"]
    ceo = facts["Daniel Okafor is the Chief Executive Officer of Acme Analytics"]["uuid"]
    qrels = [
        ("rev", facts[RESTATED_REVENUE]["uuid"], 2),
        ("revolver", p9, 1),  # an episode: every fact citing it counts
        ("revolver", facts[REVOLVER]["uuid"], 2),  # ... but a fact judged directly keeps its own grade
        ("arr", qa18, 2),
        ("ceo", ceo, 2),
    ]
    citing = {ep: {row["uuid"] for row in facts.values() if ep in (row["episodes"] or [])} for ep in (p9, qa18)}
    assert len(citing[p9]) >= 2 and facts[ARR]["uuid"] in citing[qa18]  # the script's shape, as the test needs it
    expected = {
        "rev": {facts[RESTATED_REVENUE]["uuid"]: 2},
        "revolver": {**dict.fromkeys(citing[p9], 1), facts[REVOLVER]["uuid"]: 2},
        "arr": dict.fromkeys(citing[qa18], 2),
        "ceo": {ceo: 2},
    }
    return qrels, expected


async def test_a_uuid_keyed_set_imports_and_the_sweep_scores_it(
    lab: Lab,
    acme: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qrels, expected = await _uuid_keyed_set(lab, acme, graphiti_deal)
    folder = _write(tmp_path / "acme", QUERIES, qrels)
    assert await cli(["import-queries", str(folder), "--group", acme, "--name", SET_NAME, "--json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    via_episodes = sum(len(j) for j in expected.values()) - 3  # three facts are judged directly
    assert report["status"] == "created" and report["queries"] == 5
    assert report["judgments"] == sum(len(j) for j in expected.values())
    assert (report["facts_via_episodes"], report["episodes"], report["unjudged_queries"]) == (via_episodes, 2, 1)
    warnings = [line for line in out.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "1 queries have no judgment" in warnings[0] and "open" in warnings[0]
    assert f"{report['judgments']} judgments ({via_episodes} from 2 judged episodes)" in out.err

    stored = load_query_set(lab.store, acme, SET_NAME)
    assert stored is not None and stored.source == "import" and stored.created_by == "import-queries"
    assert [q.id for q in stored.queries] == ["rev", "revolver", "arr", "ceo", "open"]
    assert stored.queries[1].type == "entity" and stored.queries[0].split == "test"
    assert stored.qrels == expected
    assert list_query_sets(lab.store, acme)[0].name == SET_NAME  # the deal's first set: its default

    eval_set = await load_eval_set(lab, acme, f"set:{SET_NAME}")
    assert {q.id for q in eval_set.scorable} == set(expected)
    assert f"set:{SET_NAME}" not in {s.source for s in await available_eval_sets(lab, acme)}  # shown as labelled
    assert (await load_eval_set(lab, acme, "labelled")).qrels == eval_set.qrels
    result = await run_sweep(
        lab, SweepSpec(acme, candidates=(10,), top_ks=(5,), rerankers=("local",), judgments=f"set:{SET_NAME}")
    )
    setting = result.setting("graphiti-default local N=10 k=5")
    assert setting.in_grid and set(result.queries) == set(expected)
    assert {"ndcg@10", "recall@10", "mrr@10", "recall@k"} <= set(setting.metrics)
    assert all(0.0 <= setting.metrics[n] <= 1.0 for n in METRIC_NAMES)
    assert setting.metrics["recall@10"] > 0.0  # 17 facts, N=10: the judged facts are found


async def test_unknown_ids_are_refused_and_nothing_is_written(
    lab: Lab,
    acme: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qrels, _ = await _uuid_keyed_set(lab, acme, graphiti_deal)
    strangers = ["00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b", "q-passage-7"]
    bad = _write(tmp_path / "bad", QUERIES, [*qrels, *(("rev", s, 1) for s in strangers)], header=False)
    before = list_query_sets(lab.store, acme)
    assert await cli(["import-queries", str(bad), "--group", acme, "--name", "strangers"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    assert "3 corpus ids are neither a fact nor an episode" in err[0] and strangers[0] in err[0]
    assert list_query_sets(lab.store, acme) == before and load_query_set(lab.store, acme, "strangers") is None

    # a fact of another deal is as unknown as a made-up id
    from pipeline.ingest.loading import stable_uuid

    other = _write(tmp_path / "other", QUERIES[:1], [("rev", stable_uuid("demo", "fact", "f01"), 1)])
    assert await cli(["import-queries", str(other), "--group", acme]) == 2
    assert "1 corpus ids are neither" in capsys.readouterr().err
    for argv, message in [
        (["import-queries", str(tmp_path / "nowhere"), "--group", acme], "not a folder"),
        (["import-queries", "--group", acme], "either a folder"),
        (["import-queries", str(bad), "--from-verdicts", "--group", acme], "either a folder"),
        (["import-queries", str(bad), "--group", "no_such_deal"], "No deal named 'no_such_deal'"),
    ]:
        assert await cli(argv) == 2
        assert message in capsys.readouterr().err.strip().splitlines()[-1]
    assert list_query_sets(lab.store, acme) == before


async def test_re_running_is_idempotent_and_replace_replaces(
    lab: Lab,
    acme: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qrels, _ = await _uuid_keyed_set(lab, acme, graphiti_deal)
    folder = _write(tmp_path / "acme-rerun", QUERIES, qrels)
    argv = ["import-queries", str(folder), "--group", acme, "--json"]  # name: the folder's
    assert await cli(argv) == 0 and json.loads(capsys.readouterr().out)["status"] == "created"
    first = load_query_set(lab.store, acme, "acme-rerun")
    assert await cli(argv) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["status"] == "unchanged" and "unchanged, nothing to do" in out.err
    again = load_query_set(lab.store, acme, "acme-rerun")
    assert again == first and again is not None and again.created_at == first.created_at  # type: ignore[union-attr]

    _write(folder, QUERIES[:2], qrels[:2])  # other content, same name
    assert await cli(argv) == 2
    assert "already has a different query set named 'acme-rerun'" in capsys.readouterr().err
    assert load_query_set(lab.store, acme, "acme-rerun") == first
    assert await cli([*argv, "--replace"]) == 0 and json.loads(capsys.readouterr().out)["status"] == "replaced"
    replaced = load_query_set(lab.store, acme, "acme-rerun")
    assert replaced is not None and [q.id for q in replaced.queries] == ["rev", "revolver"]
    assert sum(s.name == "acme-rerun" for s in list_query_sets(lab.store, acme)) == 1
    # a second set of the deal is offered to the evaluation by name
    assert "set:acme-rerun" in {s.source for s in await available_eval_sets(lab, acme)}


async def test_verdicts_freeze_into_a_set_that_evaluates_like_any_other(
    lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    group = "qsets_demo"
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=group)
    assert await cli(["import-queries", "--from-verdicts", "--group", group]) == 2
    assert "no analysts' verdicts" in capsys.readouterr().err
    spec = QueueSpec(
        name="to freeze",
        group_id=group,
        source="query_set",
        size=4,
        seed=5,
        priority="random",
        created_by="Ana",
        top_k=2,
        query_limit=3,
        reranker="none",
    )
    items = queue_items(lab.store, (await build_queue(lab, spec)).id)
    assert len(items) == 4
    for item, grade in zip(items, [2, 1, 0, 2], strict=True):  # relevance grades (support verdicts are not)
        record_relevance(lab.store, item.id, "Ana", grade)
    judged = verdict_judgments(lab.store, group)

    saved = save_verdicts_as_query_set(lab.store, group, "frozen verdicts")
    assert saved.status == "created" and saved.judgments == sum(len(j) for j in judged.values())
    frozen = load_query_set(lab.store, group, "frozen verdicts")
    labelled = load_query_set(lab.store, group)
    assert frozen is not None and labelled is not None and labelled.name == "labelled"  # the own set stays default
    assert frozen.source == "verdicts" and frozen.qrels == judged
    by_id = {q.id: q for q in labelled.queries}
    assert all(q == by_id[q.id] for q in frozen.queries)  # labelled ids keep their text, type and split

    assert await cli(["import-queries", "--from-verdicts", "--group", group, "--name", "frozen verdicts"]) == 0
    assert "unchanged, nothing to do" in capsys.readouterr().err
    record_relevance(lab.store, items[0].id, "Ben", 0)  # today's verdicts move on; the frozen set not
    assert verdict_judgments(lab.store, group) != judged
    assert load_query_set(lab.store, group, "frozen verdicts") == frozen
    assert await cli(["import-queries", "--from-verdicts", "--group", group, "--name", "frozen verdicts"]) == 2
    assert "--replace" in capsys.readouterr().err

    eval_set = await load_eval_set(lab, group, "set:frozen verdicts")
    assert eval_set.qrels == {q: j for q, j in judged.items() if q in eval_set.qrels} and eval_set.label.endswith(
        "(verdicts)"
    )
    assert items[0].query_id in {q.id for q in eval_set.scorable}  # its relevant grade makes it scorable
    result = await run_sweep(lab, SweepSpec(group, (10,), (5,), ("none",), judgments="set:frozen verdicts"))
    assert set(result.queries) == {q.id for q in eval_set.scorable}
    assert all(0.0 <= result.setting("graphiti-default none N=10 k=5").metrics[n] <= 1.0 for n in METRIC_NAMES)


async def test_the_demo_set_is_stored_exactly_as_its_files_say(lab: Lab, demo: str) -> None:
    stored = load_query_set(lab.store, demo)
    assert stored is not None and (stored.name, stored.source) == ("labelled", "demo")
    assert list(stored.queries) == read_queries(QUERIES_FILE)
    assert stored.qrels == keyed_qrels(demo, read_qrels(QRELS_FILE))
    facts = {row["uuid"] for row in await lab.backend.cypher.facts(demo)}
    assert {u for judged in stored.qrels.values() for u in judged} <= facts
