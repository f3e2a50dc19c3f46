"""Query sets in and out through `python -m pipeline`, on the graphiti-written deal: a query log imported as an
unjudged set (de-duplicated, stable ids, seeded samples), History's queries as a set, and every stored set
exported as beir, trec and quepid and imported back as it was; bad files are one line and store nothing."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.query_sets import list_query_sets, load_query_set
from pipeline.query_sets.logs import text_query_id
from pipeline.query_sets.records import QuerySet
from pipeline.query_sets.sets import delete_query_set
from tests.support.graphiti_deal import (
    ARR,
    RESTATED_REVENUE,
    REVOLVER,
    GraphitiDeal,
    graphiti_deal,  # noqa: F401 (the session fixture)
)
from tests.unit.test_runs_store import make_run

# 20 lines: 16 distinct questions, 4 repeats (case and spacing aside): lines 5, 9, 12 and 17
REPEATS = (4, 8, 11, 16)
LOG = [
    "What was Acme Analytics' FY2025 revenue?",
    "Which bank provides the revolving credit facility?",
    "What is the ARR of Acme Insight Cloud?",
    "Who is the chief executive of Acme Analytics?",
    "what was acme analytics'   FY2025 revenue?",
    "How large is the revolver now?",
    "When does the revolver mature?",
    "What did the audit restate?",
    "WHO IS THE CHIEF EXECUTIVE OF ACME ANALYTICS?",
    "How fast did revenue grow year over year?",
    "What is the FY2026 revenue plan?",
    "  Which bank provides the revolving credit facility?  ",
    "Is Acme Analytics, Inc. the same company as Acme Analytics?",
    "What does Acme Insight Cloud do?",
    "Who are the main customers?",
    "What is the customer churn?",
    "What is the ARR of Acme Insight Cloud?",
    "What are the key risks?",
    "Which questions are open with management?",
    "What is the headcount?",
]


async def cli(argv: list[str]) -> int:
    """`python -m pipeline ...` in this process, on a thread of its own (it runs its own event loop)."""
    return await asyncio.to_thread(main, argv)


async def cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    code = await cli([*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


@pytest.fixture(scope="module")
def acme(graphiti_deal: GraphitiDeal) -> str:  # noqa: F811
    return graphiti_deal.group_id


@pytest.fixture(scope="module", autouse=True)
def _sets_removed_afterwards(lab: Lab, acme: str) -> Iterator[None]:
    """The session's deal is shared: other modules expect its sets as they left them (its default among them)."""
    before = {s.name for s in list_query_sets(lab.store, acme)}
    yield
    for info in list_query_sets(lab.store, acme):
        if info.name not in before:
            delete_query_set(lab.store, acme, info.name)


def _log(tmp_path: Path) -> Path:
    path = tmp_path / "asked.txt"
    path.write_text("\n\n".join(LOG[:10]) + "\n\n" + "\n".join(LOG[10:]) + "\n", encoding="utf-8")  # blank lines
    return path


async def test_a_query_log_becomes_an_unjudged_set_de_duplicated_and_sampled(
    lab: Lab, acme: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path)
    report, err = await cli_json(["import-queries", str(log), "--group", acme, "--name", "asked"], capsys)
    assert (report["status"], report["format"], report["read"], report["duplicates"]) == ("created", "txt", 20, 4)
    assert (report["queries"], report["judgments"], report["unjudged_queries"]) == (16, 0, 16)
    assert "read 20 lines (txt), 4 duplicates dropped" in err and "no judgments (an unjudged set" in err
    assert "warning" not in err
    stored = load_query_set(lab.store, acme, "asked")
    assert stored is not None and (stored.source, stored.created_by) == ("import", "import-queries (log)")
    assert [q.text for q in stored.queries] == [q for i, q in enumerate(LOG) if i not in REPEATS]
    assert [q.id for q in stored.queries] == [text_query_id(q.text) for q in stored.queries]
    assert {q.type for q in stored.queries} == {"log"} and stored.qrels == {}

    again, err = await cli_json(["import-queries", str(log), "--group", acme, "--name", "asked"], capsys)
    assert again["status"] == "unchanged" and "unchanged, nothing to do" in err  # the same ids again

    picks = []
    for name in ("sample a", "sample b"):
        sampled, err = await cli_json(
            ["import-queries", str(log), "--group", acme, "--name", name, "--sample", "5", "--seed", "3"], capsys
        )
        assert (sampled["queries"], sampled["sampled_from"], sampled["seed"]) == (5, 16, 3)
        assert "4 duplicates dropped, sampled 5 of 16 (seed 3)" in err
        picks.append(load_query_set(lab.store, acme, name))
    first, second = picks
    assert first is not None and second is not None and first.queries == second.queries
    assert first.created_by == "import-queries (log), sample of 5 seed 3"
    order = [q.id for q in stored.queries]
    assert [order.index(q.id) for q in first.queries] == sorted(order.index(q.id) for q in first.queries)
    everything, _ = await cli_json(
        ["import-queries", str(log), "--group", acme, "--name", "asked", "--sample", "100"], capsys
    )
    assert everything["status"] == "unchanged"  # a sample larger than the log is the whole log

    before = list_query_sets(lab.store, acme)
    for argv, fragment in [
        (["--sample", "0"], "--sample"),
        (["--seed", "3"], "--seed goes with --sample"),
        (["--from-history"], "exactly one"),
        (["--from-verdicts"], "exactly one"),
        (["--limit", "3"], "--limit goes with --from-history"),
    ]:
        assert await cli(["import-queries", str(log), "--group", acme, "--name", "other", *argv]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and fragment in lines[0], lines
    assert list_query_sets(lab.store, acme) == before


async def test_historys_queries_become_an_unjudged_set(lab: Lab, acme: str, capsys: pytest.CaptureFixture[str]) -> None:
    # newer than any other test's runs of the deal (the session's store is shared), so the limit picks these;
    # removed afterwards, so that they are not the newest runs other tests see
    runs = [
        save_run(lab.store, make_run(query, acme, created_at=moment), "dashboard")
        for query, moment in [
            ("Who audits Acme Analytics? (history)", "2090-01-01T10:00:00+00:00"),
            ("What is the ARR of Acme Insight Cloud? (history)", "2090-01-02T10:00:00+00:00"),
            ("Who lends to Acme? (history)", "2090-01-03T10:00:00+00:00"),
            ("what is the ARR of  acme insight cloud? (HISTORY)", "2090-01-04T10:00:00+00:00"),
        ]
    ]
    runs.append(save_run(lab.store, make_run("a replay", acme, created_at="2090-02-01T10:00:00+00:00"), "bench"))
    try:
        await _history_set(lab, acme, capsys)
    finally:
        with lab.store.transaction() as conn:  # their stages, results and payloads cascade
            conn.executemany("DELETE FROM runs WHERE id = ?", [(run,) for run in runs])


async def _history_set(lab: Lab, acme: str, capsys: pytest.CaptureFixture[str]) -> None:
    report, err = await cli_json(["import-queries", "--from-history", "--group", acme, "--limit", "3"], capsys)
    assert (report["name"], report["format"], report["queries"], report["judgments"]) == ("history", "history", 3, 0)
    assert "read 4 recorded runs (history), 1 duplicates dropped" in err
    stored = load_query_set(lab.store, acme, "history")
    assert stored is not None and stored.created_by == "history"
    assert [q.text for q in stored.queries] == [  # newest first; bench replays are not what people asked
        "what is the ARR of  acme insight cloud? (HISTORY)",
        "Who lends to Acme? (history)",
        "Who audits Acme Analytics? (history)",
    ]
    assert stored.queries[0].id == text_query_id("What is the ARR of Acme Insight Cloud? (history)")

    assert await cli(["import-queries", "--from-history", "--group", "no_such_deal"]) == 2
    assert "No deal named 'no_such_deal'" in capsys.readouterr().err


async def _judged_set(
    lab: Lab, acme: str, deal: GraphitiDeal, tmp_path: Path, capsys: pytest.CaptureFixture
) -> QuerySet:
    """A set imported from a BEIR folder naming facts and an episode, with texts a spreadsheet would run, one
    a quote starts, and a query nobody judged."""
    facts = {row["fact"]: row["uuid"] for row in await lab.backend.cypher.facts(acme)}
    queries = [
        {"_id": "rev", "text": "What was Acme Analytics' FY2025 revenue?", "type": "factual", "split": "test"},
        {"_id": "f1", "text": '=HYPERLINK("http://example.invalid","revolver")', "type": "entity", "split": "dev"},
        {"_id": "f2", "text": '-1 revenue, +2 "ARR" @cloud', "type": "factual"},
        {"_id": "f3", "text": "'=quoted already", "type": "entity"},
        {"_id": "open", "text": "What else should we ask management?", "type": "exploratory"},  # no judgment
    ]
    qrels = [
        ("rev", facts[RESTATED_REVENUE], 2),
        ("rev", facts[ARR], 0),
        ("f1", facts[REVOLVER], 2),
        ("f2", deal.episode_uuids["Q&A 18"], 1),  # an episode: every fact citing it
        ("f3", facts[REVOLVER], 1),
    ]
    folder = tmp_path / "judged"
    folder.mkdir()
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (folder / "qrels.tsv").write_text("".join(f"{q}\t{d}\t{g}\n" for q, d, g in qrels), encoding="utf-8")
    report, _ = await cli_json(["import-queries", str(folder), "--group", acme, "--name", "judged"], capsys)
    assert report["status"] in ("created", "unchanged") and report["facts_via_episodes"] >= 1
    stored = load_query_set(lab.store, acme, "judged")
    assert stored is not None and stored.unjudged == ("open",)
    return stored


def _triples(query_set: QuerySet) -> set[tuple[str, str, int]]:
    texts = {q.id: q.text for q in query_set.queries}
    return {(texts[q], fact, grade) for q, judged in query_set.qrels.items() for fact, grade in judged.items()}


@pytest.mark.parametrize("format", ["beir", "trec", "quepid"])
async def test_a_set_exported_and_imported_back_is_the_same_set(
    lab: Lab,
    acme: str,
    graphiti_deal: GraphitiDeal,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    format: str,
) -> None:
    original = await _judged_set(lab, acme, graphiti_deal, tmp_path, capsys)
    out = tmp_path / ("ratings.csv" if format == "quepid" else f"{format}-out")
    exported, export_err = await cli_json(
        ["export-judgments", "--group", acme, "--set", "judged", "--format", format, "--out", str(out)], capsys
    )
    assert exported["judgments"] == original.judgments
    name = f"back from {format}"
    imported, _ = await cli_json(["import-queries", str(out), "--group", acme, "--name", name], capsys)
    assert imported["format"] == format and imported["status"] == "created"
    back = load_query_set(lab.store, acme, name)
    assert back is not None and back.source == "import"
    assert _triples(back) == _triples(original)
    if format == "beir":
        assert back.content_hash() == original.content_hash() and back.queries == original.queries
    elif format == "trec":
        assert [(q.id, q.text) for q in back.queries] == [(q.id, q.text) for q in original.queries]
        assert back.qrels == original.qrels
    else:  # Quepid: the judged queries' texts, ids from the texts, the unjudged query left out (and said so)
        assert exported["unjudged_left_out"] == 1 and exported["queries"] == len(original.queries) - 1
        assert "note: 1 queries without a judgment are not in the file: Quepid's ratings CSV" in export_err
        judged = [q for q in original.queries if q.id in original.qrels]
        assert [q.text for q in back.queries] == [q.text for q in judged]
        assert [q.id for q in back.queries] == [text_query_id(q.text) for q in judged]
        cells = [row[0] for row in csv.reader(io.StringIO(out.read_text(encoding="utf-8"), newline=""))]
        assert "'" + original.queries[1].text in cells  # a spreadsheet shows it as text
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)
    if format != "quepid":  # the unjudged query travels too
        assert exported["unjudged_written"] == 1 and "(1 without a judgment)" in export_err
    assert await cli(["import-queries", str(out), "--group", acme, "--name", name]) == 0  # again: unchanged
    assert "unchanged, nothing to do" in capsys.readouterr().err


async def test_bad_files_and_exports_are_one_line_and_store_nothing(
    lab: Lab, acme: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trec = tmp_path / "trec"
    trec.mkdir()
    (trec / "queries.tsv").write_text("q1\tWhat was revenue?\nq2\tWho lends?\n", encoding="utf-8")
    (trec / "qrels.txt").write_text("q1 0 fact-a 1\nq2 0 fact-b\n", encoding="utf-8")
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("query,docid,rating\nWhat was revenue?,00000000-0000-0000-0000-00000000000a,2\n")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"revenue\n\x89PNG\r\n\x1a\n\x00\x00")
    columns = tmp_path / "columns.csv"
    columns.write_text("question,asked_by\nrevenue?,ana\n", encoding="utf-8")
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("What was revenue?\n", encoding="utf-8")
    assert await cli(["import-queries", str(tiny), "--group", acme]) == 0  # named 'tiny'
    capsys.readouterr()
    before = list_query_sets(lab.store, acme)
    for argv, fragments in [
        ([str(trec)], ("qrels.txt line 2", "query-id 0 doc-id grade")),
        ([str(unknown)], ("unknown.csv", "1 corpus ids are neither a fact nor an episode", "nothing was imported")),
        ([str(binary)], ("binary.txt line 2",)),
        ([str(columns)], ("columns.csv", "no 'query' column", "'question', 'asked_by'")),
        ([str(trec), "--format", "quepid"], ("not a file",)),
    ]:
        assert await cli(["import-queries", *argv, "--group", acme, "--name", "bad"]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), lines
        assert all(f in lines[0] for f in fragments), lines[0]
    assert list_query_sets(lab.store, acme) == before and load_query_set(lab.store, acme, "bad") is None

    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine", encoding="utf-8")
    for argv, fragment in [
        (["--set", "no such set", "--format", "beir", "--out", str(tmp_path / "x")], "no query set named 'no such"),
        (["--set", "tiny", "--format", "trec", "--out", str(full)], "not an empty folder"),
        (["--set", "tiny", "--format", "quepid", "--out", str(tmp_path / "no" / "x.csv")], "cannot be written"),
    ]:
        assert await cli(["export-judgments", "--group", acme, *argv]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], lines
    assert sorted(p.name for p in full.iterdir()) == ["keep.txt"] and not (tmp_path / "x").exists()
