"""Bad input on the command line: one clear line on stderr, exit code 2, nothing written."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

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


# --- issue 15, item 8: every bad input is one line naming the file, line and field, exit 2 -------------------


def beir_folder(
    root: Path, corpus: bytes | None = None, queries: bytes | None = None, qrels: bytes | None = None
) -> Path:
    """beir_mini with some of its files replaced by the given bytes."""
    folder = root / "beir"
    folder.mkdir(exist_ok=True)
    for name, content in (("corpus.jsonl", corpus), ("queries.jsonl", queries), ("qrels.tsv", qrels)):
        (folder / name).write_bytes(content if content is not None else (FIXTURES / "beir_mini" / name).read_bytes())
    return folder


def one_line_exit_2(code: int, err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, err)
    assert "unexpected" not in lines[0] and "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


MINI_LINE = (FIXTURES / "beir_mini" / "corpus.jsonl").read_bytes().splitlines()[0]


@pytest.mark.parametrize(
    ("files", "fragments"),
    [
        ({"corpus": b'{"_id": "p1", "text": "ok \xff\xfe bad"}\n'}, ("corpus.jsonl line 1", "not UTF-8", "0xff")),
        ({"queries": b'{"_id": "q1", "text": "fine"}\n{"_id": "q2", "text": "\xc3("}\n'}, ("queries.jsonl line 2",)),
        ({"qrels": b"q1\tp1\t1\n\xff\tp2\t1\n"}, ("qrels.tsv line 2", "not UTF-8")),
        ({"qrels": b"q1\tp1\t99999999999999999999999\n"}, ("qrels.tsv line 1", "score", "-1000 to 1000")),
        # a malformed grade on the first line is a judgment to check, not a header to skip; digits are 0-9 only
        ({"qrels": b"q1\tp1\t1e23\nq2\tp2\t2\n"}, ("qrels.tsv line 1", "score")),
        ({"qrels": b"q1\tp1\t+3\nq2\tp2\t2\n"}, ("qrels.tsv line 1", "score")),
        ({"qrels": "q1\tp1\t\u0663\n".encode()}, ("qrels.tsv line 1", "score", "digits 0-9")),
        ({"qrels": "query-id\tcorpus-id\tscore\nq1\tp1\t\u00b2\n".encode()}, ("qrels.tsv line 2", "score")),
        ({"corpus": MINI_LINE.replace(b'"page": 41', '"page": "\u0664\u0661"'.encode()) + b"\n"}, ("field 'page'",)),
        ({"corpus": MINI_LINE.replace(b'"page": 41', b'"page": 100000000000000000000') + b"\n"}, ("field 'page'",)),
        ({"corpus": MINI_LINE.replace(b'"page": 41', b'"page": -3') + b"\n"}, ("line 1", "field 'page'", "1 to")),
        ({"corpus": MINI_LINE.replace(b'"page": 41', b'"page": NaN') + b"\n"}, ("field 'page'",)),
        ({"corpus": MINI_LINE.replace(b'"page": 41', b'"date": "99999-01-01"') + b"\n"}, ("field 'date'", "1900")),
        ({"corpus": MINI_LINE.replace(b'"page": 41', b'"date": "0001-01-01T00:00:00-05:00"') + b"\n"}, ("'date'",)),
        ({"corpus": b'["a list", "not an object"]\n'}, ("corpus.jsonl line 1", "JSON object")),
        ({"corpus": b'{"_id": "p1"}\n'}, ("corpus.jsonl line 1", "no field 'text'")),
    ],
)
def test_bad_beir_files_name_the_file_line_and_field(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, bytes], fragments: tuple[str, ...]
) -> None:
    folder = beir_folder(tmp_path, **files)
    one_line_exit_2(main(["import-beir", str(folder), "--group", "cli_bad_file"]), capsys.readouterr().err, *fragments)
    if "queries" in files or "qrels" in files:  # the same files as a query set of an existing deal
        one_line_exit_2(main(["import-queries", str(folder), "--group", demo]), capsys.readouterr().err, *fragments)
    assert main(["status", "--json"]) == 0
    assert "cli_bad_file" not in {d["group"] for d in json.loads(capsys.readouterr().out)["deals"]}


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["seed-demo", "--group", "demo\n"], ("is not valid",)),
        (["query", "revenue", "--group", "demo\n"], ("is not valid",)),
        (["query", "revenue", "--candidates", "nan"], ("--candidates", "not a whole number")),
        (["query", "revenue", "--candidates", "\u0665\u0660"], ("--candidates", "digits 0-9")),  # not 50
        (["query", "revenue", "--top-k", "1_0"], ("--top-k", "digits 0-9")),
        (["eval", "--candidates", "1\u0660", "--top-k", "3"], ("--candidates", "comma-separated", "digits 0-9")),
        (["compare", "revenue", "--a", "local:\u00b2:10"], ("--a must be [RECIPE:]RERANKER:N:K",)),
        (["query", "revenue", "--top-k", "-1"], ("Top-k must be between",)),
        (["query", "revenue", "--as-of", "9999-12-31T23:59:59-05:00"], ("--as-of", "1900-2199")),
        (["query", "revenue", "--as-of", "0001-01-01"], ("--as-of", "1900-2199")),
        (["eval", "--limit-queries", "-1", "--candidates", "10", "--top-k", "3"], ("--limit-queries",)),
        (["eval", "--candidates", "10", "--top-k", "3", "--reranker", "magic"], ("Unknown reranker 'magic'",)),
        (["eval", "--candidates", "10", "--top-k", "3", "--export-csv", "/no/such/dir/x.csv"], ("cannot be written",)),
        (["nosuch"], ("invalid choice",)),
        (["bench", "--limit-queries", "-2"], ("--limit-queries", "from 1")),
        (["bench", "--reranker", "magic", "--candidates", "10"], ("Unknown reranker",)),
        (["load", "--time-limit", "nan"], ("--time-limit", "above 0")),
        (["load", "--time-limit", "inf"], ("--time-limit",)),
        (["load", "--sessions", "-1"], ("--sessions", "from 1 to 200")),
        (["latency-page", "--repeat", "0"], ("--repeat", "from 1")),
        (["compare-page", "--queries", "-3"], ("--queries",)),
        (["compare-page", "--reranker", "magic"], ("Unknown reranker",)),
    ],
)
def test_bad_arguments_are_one_line_exit_2(
    demo: str, capsys: pytest.CaptureFixture[str], argv: list[str], fragments: tuple[str, ...]
) -> None:
    benchmark = argv[0] in ("bench", "load", "latency-page", "compare-page")
    code = (benchmarks_main if benchmark else main)(argv)
    one_line_exit_2(code, capsys.readouterr().err, *fragments)


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [
        ("RETRIEVAL_LAB_DEFAULT_TOP_K", "abc", "RETRIEVAL_LAB_DEFAULT_TOP_K: "),
        ("RETRIEVAL_LAB_CONNECT_TIMEOUT_S", "nan", "RETRIEVAL_LAB_CONNECT_TIMEOUT_S: "),
        ("RETRIEVAL_LAB_VOYAGE_TIMEOUT_S", "-1", "greater than 0"),
        ("RETRIEVAL_LAB_RERANK_PRICES_PER_MTOK", "notjson", "not valid JSON"),
        ("RETRIEVAL_LAB_RERANK_PRICES_PER_MTOK", '{"rerank-2.5": -1}', "RETRIEVAL_LAB_RERANK_PRICES_PER_MTOK"),
        ("RETRIEVAL_LAB_EMBEDDER", "magic", "RETRIEVAL_LAB_EMBEDDER='magic' is not valid"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, variable: str, value: str, fragment: str
) -> None:
    from pipeline.settings import get_settings

    monkeypatch.setenv(variable, value)
    get_settings.cache_clear()
    try:
        one_line_exit_2(main(["status"]), capsys.readouterr().err, fragment)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


FILES = ("corpus.jsonl", "queries.jsonl", "qrels.tsv")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(FILES), content=st.binary(max_size=300), keep_lines=st.integers(0, 3))
@example(which="qrels.tsv", content=b"\r\x00", keep_lines=0)  # a lone carriage return inside a field (found so)
def test_random_bytes_in_any_beir_file_are_one_line_exit_2_and_write_nothing(
    demo: str, tmp_path_factory: pytest.TempPathFactory, which: str, content: bytes, keep_lines: int
) -> None:
    """Random bytes after a few good lines of one file: either a clean import or one line, exit 2, nothing written."""
    root = tmp_path_factory.mktemp("fuzz")
    good = (FIXTURES / "beir_mini" / which).read_bytes().splitlines(keepends=True)
    folder = beir_folder(root, **{which.split(".")[0]: b"".join(good[:keep_lines]) + content})
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["import-beir", str(folder), "--group", "cli_fuzz"])
    if code == 0:  # the bytes happened to be harmless (e.g. blank): a real import, removed again
        asyncio.run(_drop("cli_fuzz"))
        return
    one_line_exit_2(code, err.getvalue())
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
        assert main(["status", "--json"]) == 0
    assert "cli_fuzz" not in {d["group"] for d in json.loads(out.getvalue())["deals"]}


async def _drop(group: str) -> None:
    from pipeline.lab import Lab

    lab = await Lab.open()
    try:
        await lab.backend.delete_graph(group)
    finally:
        await lab.close()


@settings(max_examples=200, deadline=None)
@given(
    option=st.sampled_from(
        [
            ("bench", "--limit-queries"),
            ("load", "--sessions"),
            ("load", "--queries"),
            ("load", "--time-limit"),
            ("latency-page", "--repeat"),
            ("latency-page", "--seed"),
            ("compare-page", "--queries"),
        ]
    ),
    value=st.one_of(
        st.text(max_size=12),
        st.integers().map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
        st.sampled_from(["nan", "-inf", "inf", "1e400", "-0", "0", "0x10"]),
    ),
)
def test_benchmark_numbers_are_parsed_into_range_or_refused_in_one_line(option: tuple[str, str], value: str) -> None:
    from benchmarks.cli import build_parser

    command, flag = option
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = build_parser().parse_args([command, f"{flag}={value}"])
    except SystemExit as exc:
        assert exc.code == 2
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and flag in lines[0], err.getvalue()
        return
    number = getattr(args, flag.removeprefix("--").replace("-", "_"))
    assert isinstance(number, int | float) and math.isfinite(number) and number >= 0
    if flag != "--seed":
        assert number > 0


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["load", "--time-limit", "\u0661"], "--time-limit"),  # float() reads it as 1.0
        (["load", "--time-limit", "1e3"], "--time-limit"),
        (["load", "--sessions", "\u0663"], "--sessions"),
        (["latency-page", "--runs", "\u00b2"], "--runs"),
        (["scale", "--facts", "9" * 4_301], "--facts"),
    ],
)
def test_benchmark_numbers_are_ascii_digits(argv: list[str], flag: str) -> None:
    from benchmarks.cli import build_parser

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2
    [line] = err.getvalue().strip().splitlines()
    assert line.startswith("error: ") and flag in line, line
