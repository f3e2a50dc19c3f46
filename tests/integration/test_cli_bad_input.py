"""Bad input on the command line: one clear line on stderr, exit code 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main as benchmarks_main
from pipeline.cli import main
from tests.conftest import FIXTURES


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["query", "   ", "--group", "demo"], "The query is empty"),
        (["query", "x" * 20_000, "--group", "demo"], "the limit is 2,000"),
        (["query", "revenue", "--group", "demo", "--top-k", "0"], "Top-k must be between"),
        (["query", "revenue", "--group", "demo", "--candidates", "5", "--top-k", "10"], "cannot exceed"),
        (["query", "revenue", "--group", "demo", "--candidates", "5000"], "Candidates (N) must be between"),
        (["query", "revenue", "--group", "no_such_deal"], "No deal named 'no_such_deal'"),
        (["query", "revenue", "--group", "bad name!"], "is not valid"),
        (["query", "revenue", "--group", "demo", "--reranker", "magic"], "Unknown reranker 'magic'"),
        (["query", "revenue", "--group", "demo", "--as-of", "last tuesday"], "is not a date"),
        (["bench", "--group", "demo", "--candidates", "10,x"], "not a comma-separated list"),
    ],
)
def test_bad_cli_input_is_one_clear_line_and_exit_2(
    demo: str, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    entry_point = benchmarks_main if argv[0] == "bench" else main  # bench: `python -m benchmarks`
    assert entry_point(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1]
    assert "Traceback" not in "\n".join(err)


def test_malformed_beir_folder_is_refused_and_nothing_is_imported(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "corpus.jsonl").write_text('{"_id": "a", "text": "ok"}\n{not json}\n')
    (bad / "queries.jsonl").write_text('{"_id": "q", "text": "x"}\n')
    (bad / "qrels.tsv").write_text("q\ta\t1\n")
    assert main(["import-beir", str(bad), "--group", "cli_bad"]) == 2
    assert "corpus.jsonl line 2" in capsys.readouterr().err
    assert main(["import-beir", str(FIXTURES / "missing"), "--group", "cli_bad"]) == 2
    assert "missing corpus.jsonl" in capsys.readouterr().err
    assert main(["status", "--json"]) == 0
    deals = {d["group"] for d in json.loads(capsys.readouterr().out)["deals"]}
    assert "cli_bad" not in deals and "demo" in deals


def test_query_json_contract(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "query",
                "What was FY2025 revenue?",
                "--group",
                "demo",
                "--candidates",
                "20",
                "--top-k",
                "5",
                "--reranker",
                "local",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert {"query", "group", "candidates", "reranked", "results", "timings", "rerank_used", "fallback_reason"} <= set(
        out
    )
    assert len(out["candidates"]) == 20 and len(out["results"]) == 5 and out["rerank_used"] is True
    for result in out["results"]:
        assert {"uuid", "fact", "score", "first_stage_rank", "citation"} <= set(result)
        assert result["citation"]["document_name"]
