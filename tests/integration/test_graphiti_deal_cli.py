"""Every CLI command on the deal graphiti itself wrote, with the graph attached read-only
(RETRIEVAL_LAB_READ_ONLY=1), in this process: reads and the store-only import work, writes are refused with one
line (exit 2), and the graph is byte-for-byte unchanged. That FalkorDB itself refuses a write sent through the
read path is proven in tests/integration/test_read_only.py (reused here, not repeated)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from benchmarks.cli import main as bench_main
from pipeline.cli import main
from pipeline.lab import Lab
from pipeline.settings import get_settings
from tests.app.test_graphiti_deal_pages import READ_ONLY_SET, SET_NAME, acme  # noqa: F401 (the deal with its imported set)
from tests.conftest import FIXTURES
from tests.integration.test_read_only import (  # noqa: F401 (the database's refusal, on the same deal)
    ro_lab,
    test_a_write_through_the_read_path_is_refused_by_the_database,
)
from tests.support.dump import dump_deal
from tests.support.graphiti_deal import CIM_REVENUE, RESTATED_REVENUE, graphiti_deal  # noqa: F401 (the session fixture)


@pytest.fixture
def read_only_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RETRIEVAL_LAB_READ_ONLY", "1")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


async def run(command: list[str], bench: bool = False) -> int:
    return await asyncio.to_thread(bench_main if bench else main, command)


async def test_every_command_read_only(
    lab: Lab,
    acme: str,  # noqa: F811
    read_only_env: None,
    capsys: pytest.CaptureFixture[str],
    tmp_path,
) -> None:
    before = await dump_deal(lab.backend, acme)

    assert await run(["status"]) == 0
    out = capsys.readouterr().out
    assert "read-only (RETRIEVAL_LAB_READ_ONLY)" in out and acme in out
    assert await run(["deals", "--json"]) == 0
    deal = next(d for d in json.loads(capsys.readouterr().out)["deals"] if acme in d.values())
    assert "graphiti" in deal.values()
    assert await run(["query", "What was Acme Analytics' FY2025 revenue?", "--group", acme, "--json"]) == 0
    assert RESTATED_REVENUE in capsys.readouterr().out
    ev = [
        "eval",
        "--group",
        acme,
        "--judgments",
        f"set:{SET_NAME}",
        "--candidates",
        "10",
        "--top-k",
        "5",
        "--reranker",
        "none",
    ]
    assert await run([*ev, "--json"]) == 0
    capsys.readouterr()
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": "revenue"}) + "\n", encoding="utf-8")
    fact = next(f["uuid"] for f in await lab.backend.cypher.facts(acme) if f["fact"] == RESTATED_REVENUE)
    (folder / "qrels.tsv").write_text(f"q\t{fact}\t1\n", encoding="utf-8")
    assert await run(["import-queries", str(folder), "--group", acme, "--name", READ_ONLY_SET]) == 0  # store only
    capsys.readouterr()
    assert await run(["bench", "--group", acme, "--candidates", "10", "--limit-queries", "2"], bench=True) == 0
    capsys.readouterr()

    for refused in (["seed-demo", "--group", acme], ["import-beir", str(FIXTURES / "beir_mini"), "--group", acme]):
        assert await run(refused) == 2, refused
        err = capsys.readouterr().err
        assert err.startswith("error: Read-only: ") and err.count("\n") == 1, err

    assert await dump_deal(lab.backend, acme) == before


async def test_query_marks_facts_superseded_on_its_as_of_date_only(
    acme: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CIM's $4.9M was restated in March 2026: valid as of February, superseded now."""
    question = ["query", "What was Acme Analytics' FY2025 revenue?", "--group", acme, "--reranker", "none"]
    assert await run([*question, "--as-of", "2026-02-01"]) == 0
    then = [line for line in capsys.readouterr().out.splitlines() if CIM_REVENUE[:40] in line]
    assert then and not any("[superseded]" in line for line in then)
    assert await run([*question, "--include-superseded"]) == 0
    now = [line for line in capsys.readouterr().out.splitlines() if CIM_REVENUE[:40] in line]
    assert now and all("[superseded]" in line for line in now)
