"""Every command as a restricted deployment (RETRIEVAL_LAB_ALLOWED_DEALS=demo) over a graph and store that also
hold another deal, in this process: the allowed deal's reads and writes work and print nothing of the other
deal; every command aimed at the other deal (or at a deal not allowed that does not exist yet: loaders would
create it) is refused with one line, exit 2, and leaves its graph and store rows exactly as they were.
Property-based over the refused commands; a blank allow-list is a settings error for every command."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.cli import main as bench_main
from pipeline.cli import main
from pipeline.ingest.loading import stable_uuid
from pipeline.lab import Lab
from pipeline.settings import get_settings
from tests.support.dump import dump_deal
from tests.support.two_deals import OtherDeal, build_other_deal, leaks, leave_traces

ENV = "RETRIEVAL_LAB_ALLOWED_DEALS"
OTHER, MARKER = "cli_other", "wombatrix"


@pytest.fixture(scope="module")
async def other(lab: Lab, demo: str, tmp_path_factory: pytest.TempPathFactory) -> OtherDeal:
    other = await build_other_deal(lab, tmp_path_factory.mktemp("cli_walk"), OTHER, MARKER)
    await leave_traces(lab, demo)
    return other


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    yield monkeypatch
    monkeypatch.undo()
    get_settings.cache_clear()


def allow(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(ENV, value)
    get_settings.cache_clear()


def run(capsys: pytest.CaptureFixture[str], command: list[str], bench: bool = False) -> tuple[int, str, str]:
    code = (bench_main if bench else main)(command)
    out = capsys.readouterr()
    return code, out.out, out.err


def store_rows(lab: Lab, group_id: str) -> dict[str, int]:
    """How many rows of the deal each store table holds (the session lab sees every deal)."""
    tables = ("runs", "experiments", "spotcheck_queues", "query_sets", "audit_log", "fact_corrections", "deals")
    return {t: int(lab.store.query(f"SELECT COUNT(*) FROM {t} WHERE group_id = ?", (group_id,))[0][0]) for t in tables}


def assert_refused(code: int, out: str, err: str, other: OtherDeal) -> None:
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert MARKER not in (out + err).lower()


def demo_set(tmp: Path) -> Path:
    """A one-query labelled set for the demo deal (judging one of its facts)."""
    folder = tmp / "demo_set"
    folder.mkdir(exist_ok=True)
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "cash balance"}) + "\n")
    (folder / "qrels.tsv").write_text(f"q\t{stable_uuid('demo', 'fact', 'f216')}\t1\n")
    return folder


def refused_commands(other: OtherDeal, group: str, tmp: Path) -> list[tuple[list[str], bool]]:
    queries = tmp / "set"
    queries.mkdir(exist_ok=True)
    (queries / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "revenue"}) + "\n")
    (queries / "qrels.tsv").write_text("q\tp0\t1\n")
    (tmp / "asked.txt").write_text("revenue\n")
    return [
        (["query", "What was FY2025 revenue?", "--group", group], False),
        (["eval", "--group", group, "--candidates", "10", "--top-k", "3", "--reranker", "none"], False),
        (["import-queries", str(queries), "--group", group, "--name", "probe"], False),
        (["import-queries", "--from-verdicts", "--group", group], False),
        (["import-queries", str(tmp / "asked.txt"), "--group", group], False),
        (["import-queries", "--from-history", "--group", group], False),
        (["export-judgments", "--group", group, "--format", "beir", "--out", str(tmp / "exported")], False),
        (["seed-demo", "--group", group], False),
        (["seed-demo", "--group", group, "--force"], False),
        (["import-beir", str(other.folder), "--group", group], False),
        (["import-beir", str(other.folder), "--group", group, "--replace"], False),
        (["deals", "--read-only", group], False),
        (["deals", "--writable", group], False),
        (["bench", "--group", group, "--candidates", "10", "--limit-queries", "1"], True),
        (["load", "--group", group, "--sessions", "1", "--queries", "1"], True),
    ]


async def test_allowed_commands_show_nothing_of_the_other_deal(
    lab: Lab, other: OtherDeal, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    allow(env, "demo")
    before = await dump_deal(lab.backend, OTHER)
    commands = [
        (["status"], False),
        (["deals"], False),
        (["deals", "--json"], False),
        (["query", "What was FY2025 revenue?", "--group", "demo", "--json"], False),
        (["eval", "--group", "demo", "--candidates", "10", "--top-k", "3", "--reranker", "none", "--json"], False),
        (["import-queries", str(demo_set(tmp_path)), "--group", "demo", "--name", "walk set", "--replace"], False),
        (["seed-demo"], False),
        (["bench", "--group", "demo", "--candidates", "10", "--limit-queries", "1", "--json"], True),
    ]
    for command, bench in commands:
        code, out, err = await asyncio.to_thread(run, capsys, command, bench)
        assert code == 0, (command, err)
        assert not leaks(out + err, other), (command, leaks(out + err, other))
    # a positive control: unrestricted, the same listing names the other deal
    env.delenv(ENV)
    get_settings.cache_clear()
    code, out, _ = await asyncio.to_thread(run, capsys, ["deals", "--json"])
    assert code == 0 and OTHER in out
    assert await dump_deal(lab.backend, OTHER) == before


@pytest.mark.parametrize("pick", range(15))  # every command of refused_commands
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    allowed=st.sampled_from(["demo", "demo ", "demo,ghost_deal"]), target=st.sampled_from([OTHER, "not_allowed_new"])
)
async def test_commands_on_a_deal_not_allowed_are_refused(
    lab: Lab,
    other: OtherDeal,
    env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
    allowed: str,
    target: str,
    pick: int,
) -> None:
    allow(env, allowed)
    rows = store_rows(lab, target)
    before = await dump_deal(lab.backend, target) if target == OTHER else None
    command, bench = refused_commands(other, target, tmp_path_factory.mktemp("refused"))[pick]
    code, out, err = await asyncio.to_thread(run, capsys, command, bench)
    assert_refused(code, out, err, other)
    assert store_rows(lab, target) == rows
    if before is not None:
        assert await dump_deal(lab.backend, target) == before
    else:
        assert not await lab.backend.cypher.holds_group(target)


@pytest.mark.parametrize("value", ["", ",", " ", " , "])
@pytest.mark.parametrize("command", [["status"], ["deals"], ["seed-demo"], ["query", "revenue", "--group", "demo"]])
def test_a_blank_allow_list_is_an_error_for_every_command(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, command: list[str]
) -> None:
    allow(env, value)
    code, out, err = run(capsys, command)
    assert code == 2 and not out
    assert err.strip().splitlines() == [
        "error: RETRIEVAL_LAB_ALLOWED_DEALS is set but names no deal; give a comma-separated list of deal names "
        "(e.g. demo,tatqa), or unset it to allow every deal"
    ]
