"""Query-set files without a graph: query logs (.txt, .csv, queries.jsonl) de-duplicated with stable ids, seeded
samples, TREC and Quepid readers, exports that read back exactly, and malformed lines named by file and line."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cli import export_judgments, import_queries
from pipeline.csv_cells import FORMULA_STARTS, reversible_cell, undo_reversible_cell
from pipeline.errors import DataFileError, InvalidInput
from pipeline.query_sets.export import export_query_set
from pipeline.query_sets.formats import FORMATS, JUDGED_FORMATS, detect_format, read_path, read_quepid
from pipeline.query_sets.logs import SetRead, history_read, normalised, sample, text_query_id
from pipeline.query_sets.records import LabelledQuery, QuerySet

LOG = [
    "What was Acme's FY2025 revenue?",
    "",
    "who is the CEO?",
    "  what WAS acme's   fy2025 revenue?  ",  # a repeat of line 1, spaced and cased differently
    "Which bank provides the revolver?",
    "\t",
    "Who is the CEO?",  # a repeat of line 3
    "What is the ARR of Acme Insight Cloud?",
]


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _log(tmp_path: Path, lines: list[str] = LOG, name: str = "log.txt") -> Path:
    return _write(tmp_path / name, "\n".join(lines) + "\n")


# --- logs ----------------------------------------------------------------------------------------


def test_a_log_is_de_duplicated_in_order_with_ids_from_the_text(tmp_path: Path) -> None:
    read = read_path(_log(tmp_path))
    assert read.format == "txt" and (read.read, read.duplicates) == (6, 2) and read.qrels == {}
    assert [q.text for q in read.queries] == [LOG[0], LOG[2], LOG[4], LOG[7]]  # the first spelling wins
    assert all(q.type == "log" and re.fullmatch(r"q-[0-9a-f]{12}", q.id) for q in read.queries)
    assert read.queries[0].id == text_query_id(LOG[3]) != text_query_id(LOG[2])
    # the id is pinned: a changed recipe would give every re-imported log new ids
    assert text_query_id("  Who is the CEO? ") == "q-89fbec786357"  # sha256 of "who is the ceo?"
    again = read_path(_log(tmp_path, [*reversed(LOG)], "again.txt"))
    assert {q.id for q in again.queries} == {q.id for q in read.queries}


def test_a_log_tolerates_a_bom_and_crlf_and_refuses_binary_or_empty_files(tmp_path: Path) -> None:
    read = read_path(_write(tmp_path / "crlf.txt", b"\xef\xbb\xbfrevenue?\r\nceo?\r\n"))
    assert [q.text for q in read.queries] == ["revenue?", "ceo?"]
    for name, data, fragments in [
        ("nul.txt", b"revenue?\nceo\x00?\n", ("nul.txt line 2", "NUL")),
        ("latin1.txt", b"revenue?\ncaf\xe9\n", ("latin1.txt line 2", "not UTF-8")),
        ("blank.txt", b"\n  \n\t\n", ("blank.txt", "no queries")),
        ("empty.txt", b"", ("empty.txt", "no queries")),
        ("huge.txt", b"x" * 10_001 + b"\n", ("huge.txt line 1", "10,001 characters")),
    ]:
        with pytest.raises(DataFileError) as error:
            read_path(_write(tmp_path / name, data))
        assert all(f in str(error.value) for f in fragments) and "\n" not in str(error.value), str(error.value)


def test_a_csv_log_reads_its_query_column_and_ids(tmp_path: Path) -> None:
    text = (
        "\ufeffsource,Query,id\n"
        'web,"revenue, restated?",r1\n'
        'chat,"a question\nover two lines",\n'  # no id: one from the text
        "web,  ,r3\n"  # no query: skipped
        'web,"REVENUE,  restated?",r4\n'  # a different id, but the text of r1 once normalised
        'web,"revenue,  restated?"\n'  # a short row (no id cell)
        "web,=HYPERLINK(1),r5\n"  # read as written: a log's cells are data, not this tool's export
    )
    read = read_path(_write(tmp_path / "asked.csv", text))
    assert read.format == "csv" and read.read == 5
    assert [(q.id, q.text) for q in read.queries] == [
        ("r1", "revenue, restated?"),
        (text_query_id("a question over two lines"), "a question\nover two lines"),
        ("r5", "=HYPERLINK(1)"),
    ]
    assert read.duplicates == 2


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("id,question\n1,revenue?\n", ("no 'query' column", "'id', 'question'")),
        ("", ("empty file",)),
        ("query,id\nrevenue?,a\nceo?,a\n", ("line 3", "query id 'a'", "line 2")),
        ('query\n"unclosed\n', ("line 2", "not CSV")),
        ("query\n \n", ("no queries",)),
    ],
)
def test_bad_csv_logs_are_one_line(tmp_path: Path, text: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(DataFileError) as error:
        read_path(_write(tmp_path / "bad.csv", text))
    message = str(error.value)
    assert message.startswith("bad.csv") and all(f in message for f in fragments) and "\n" not in message, message


def test_a_queries_jsonl_alone_is_an_unjudged_set(tmp_path: Path) -> None:
    rows = [
        {"_id": "a", "text": "Revenue?", "type": "factual"},
        {"_id": "b", "text": "revenue?"},
        {"id": "c", "text": "CEO"},
    ]
    folder = tmp_path / "only"
    folder.mkdir()
    _write(folder / "queries.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    for path in (folder, folder / "queries.jsonl"):
        read = read_path(path)
        assert read.format == "jsonl" and read.qrels == {} and (read.read, read.duplicates) == (3, 1)
        assert [(q.id, q.type) for q in read.queries] == [("a", "factual"), ("c", "unlabelled")]


def test_samples_are_seeded_keep_order_and_judgments(tmp_path: Path) -> None:
    queries = tuple(LabelledQuery(f"q{i}", f"question {i}", "log") for i in range(50))
    read = SetRead(queries, {"q3": {"f": 1}, "q7": {"f": 2}}, "txt", "log.txt")
    first, again = sample(read, 10, seed=7), sample(read, 10, seed=7)
    assert first == again and len(first.queries) == 10 and first.sampled_from == 50
    positions = [queries.index(q) for q in first.queries]
    assert positions == sorted(positions)  # the log's order
    assert first.qrels == {q: j for q, j in read.qrels.items() if q in {x.id for x in first.queries}}
    assert sample(read, 10, seed=8).queries != first.queries
    assert sample(read, 500, seed=7).queries == queries  # more than there are: all of them
    shuffled = SetRead(tuple(reversed(queries)), {}, "txt", "log.txt")  # the pick is a query's, not a position's
    assert {q.id for q in sample(shuffled, 10, seed=7).queries} == {q.id for q in first.queries}
    with pytest.raises(ValueError):
        sample(read, 0, seed=7)


def test_history_keeps_the_newest_distinct_queries_up_to_the_limit() -> None:
    asked = [("Revenue?", 3), ("ceo?", 1), ("  revenue? ", 2), ("ARR?", 1), ("debt?", 4)]
    read = history_read(asked, "deal", limit=3)
    assert [q.text for q in read.queries] == ["Revenue?", "ceo?", "ARR?"]
    assert (read.read, read.duplicates) == (7, 4) and read.queries[0].id == text_query_id("revenue?")
    assert [q.text for q in history_read(asked, "deal", limit=100).queries] == ["Revenue?", "ceo?", "ARR?", "debt?"]


# --- judged formats -------------------------------------------------------------------------------


def test_trec_folders_read_and_malformed_lines_name_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "trec"
    folder.mkdir()
    _write(folder / "queries.tsv", "\ufeffq1\tRevenue, FY2025?\nq2\t  spaced text \n\nq3\t\n")
    _write(folder / "qrels.txt", "q1 0 fact-a 2\nq1\tQ0\tfact-b\t-1\n\nq2 0 ep-1 1\nq1 0 fact-a 2\n")
    read = read_path(folder)
    assert read.format == "trec" and read.judgments_file.endswith("qrels.txt")
    assert [(q.id, q.text) for q in read.queries] == [("q1", "Revenue, FY2025?"), ("q2", "  spaced text "), ("q3", "")]
    assert read.qrels == {"q1": {"fact-a": 2, "fact-b": -1}, "q2": {"ep-1": 1}}  # a pair repeated alike: once
    cases = [
        ("qrels.txt", "q1 0 fact-a 2\nq1 fact-b 1\n", ("qrels.txt line 2", "query-id 0 doc-id grade")),
        ("qrels.txt", "q1 0 fact-a 1.5\n", ("qrels.txt line 1", "digits 0-9")),
        ("qrels.txt", "q1 0 fact-a \u0662\n", ("qrels.txt line 1",)),
        ("qrels.txt", "q9 0 fact-a 1\n", ("unknown query ids", "q9")),
        # a pair graded twice differently: neither grade is guessed (issue 38)
        ("qrels.txt", "q1 0 fact-a 1\nq1 0 fact-a 3\n", ("qrels.txt line 2", "line 1 graded the same pair 1")),
        ("queries.tsv", "q1\tok\nq2 no tab\n", ("queries.tsv line 2", "query-id<TAB>text")),
        ("queries.tsv", "q1\tok\nq1\tagain\n", ("queries.tsv line 2", "repeats line 1")),
    ]
    for number, (name, text, fragments) in enumerate(cases):
        bad = tmp_path / f"bad-{number}"
        bad.mkdir()
        _write(bad / "queries.tsv", "q1\tRevenue?\nq2\tCEO?\n")
        _write(bad / "qrels.txt", "q1 0 fact-a 1\n")
        _write(bad / name, text)
        with pytest.raises(DataFileError) as error:
            read_path(bad)
        assert all(f in str(error.value) for f in fragments), str(error.value)
    missing = tmp_path / "half"
    missing.mkdir()
    _write(missing / "queries.tsv", "q1\tRevenue?\n")
    with pytest.raises(DataFileError, match=r"missing qrels\.txt"):
        read_path(missing)


def test_quepid_ratings_key_queries_by_their_text(tmp_path: Path) -> None:
    text = (
        "query,docid,rating\n"
        "Revenue FY2025?,fact-a,3\n"
        '"revenue  fy2025?",fact-b,1\n'  # the same query once normalised: its first spelling
        "'=SUM(A1),fact-a,0\n"  # this tool's export of "=SUM(A1)"
        "'s-Hertogenbosch office,fact-c,2\n"  # a text that starts with ' on its own is left alone
    )
    read = read_quepid(_write(tmp_path / "ratings.csv", text))
    assert [q.text for q in read.queries] == ["Revenue FY2025?", "=SUM(A1)", "'s-Hertogenbosch office"]
    first = read.queries[0].id
    assert first == text_query_id("revenue fy2025?") and read.qrels[first] == {"fact-a": 3, "fact-b": 1}
    assert read.read == 4 and detect_format(tmp_path / "ratings.csv") == "quepid"
    for body, fragments in [
        ("query,docid,rating\nok,fact-a,2\nok,fact-b,high\n", ("line 3", "query,docid,rating")),
        ("query,docid,rating\nok,,2\n", ("line 2",)),
        ("query,docid,rating\nok,fact-a\n", ("line 2",)),
        ("query,docid,rating\n", ("no ratings",)),
    ]:
        with pytest.raises(DataFileError) as error:
            read_quepid(_write(tmp_path / "bad.csv", body))
        assert all(f in str(error.value) for f in fragments), str(error.value)


def test_shapes_are_detected_and_others_refused_in_one_line(tmp_path: Path) -> None:
    assert detect_format(_log(tmp_path)) == "txt"
    assert detect_format(_write(tmp_path / "q.csv", "query\nrevenue\n")) == "csv"
    for path, fragment in [
        (_write(tmp_path / "q.xlsx", b"PK\x03\x04"), "not a file this command reads"),
        (tmp_path / "nowhere", "not a folder"),
        (_write(tmp_path / "qrels.txt", "q1 0 f 1\n"), "give its folder"),
    ]:
        with pytest.raises(DataFileError, match=fragment):
            read_path(path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFileError, match="no query files"):
        read_path(tmp_path / "empty")
    with pytest.raises(DataFileError, match=r"missing queries\.jsonl"):
        read_path(tmp_path / "empty", "jsonl")
    with pytest.raises(DataFileError, match="not a folder"):
        read_path(_log(tmp_path), "trec")
    named = _log(tmp_path, name="asked.log")  # not a shape it knows, but a log when --format says so
    with pytest.raises(DataFileError, match="not a file this command reads"):
        read_path(named)
    assert read_path(named, "txt").format == "txt" and len(read_path(named, "txt").queries) == 4
    assert import_queries.FORMATS == FORMATS and export_judgments.FORMATS == JUDGED_FORMATS


# --- exports read back exactly --------------------------------------------------------------------

TRICKY = (
    LabelledQuery("rev", "What was Acme's FY2025 revenue?", "factual", "test"),
    LabelledQuery("f1", '=HYPERLINK("http://x","y")', "entity", "dev"),  # a formula
    LabelledQuery("f2", "-1 and +2, @both", "log"),
    LabelledQuery("f3", "'=already quoted", "log"),
    LabelledQuery("f4", "''", "log"),
    LabelledQuery("uni", "Café ümlaut — 日本語 \u2028 ok", "log"),
    LabelledQuery("open", "  a query nobody judged  ", "exploratory"),
)
TRICKY_QRELS = {
    "rev": {"fact-1": 2, "fact-2": 0},
    "f1": {"fact-1": 1},
    "f2": {"fact-3": -1},
    "f3": {"fact-2": 3},
    "f4": {"fact-1": 1},
    "uni": {"fact-3": 2},
}


@pytest.mark.parametrize("format", JUDGED_FORMATS)
def test_an_export_reads_back_as_it_was(tmp_path: Path, format: str) -> None:
    query_set = QuerySet("deal", TRICKY, TRICKY_QRELS, "tricky")
    out = tmp_path / ("ratings.csv" if format == "quepid" else "out")
    report = export_query_set(query_set, format, out)
    back = read_path(out)
    assert back.format == format
    texts = {q.id: q.text for q in TRICKY}
    judged = {(texts[q], f, g) for q, j in TRICKY_QRELS.items() for f, g in j.items()}
    back_texts = {q.id: q.text for q in back.queries}
    assert {(back_texts[q], f, g) for q, j in back.qrels.items() for f, g in j.items()} == judged
    if format == "quepid":  # no ids, no unjudged queries: the texts of the judged ones, in order
        assert [q.text for q in back.queries] == [q.text for q in TRICKY if q.id in TRICKY_QRELS]
        assert (report.unjudged_left_out, report.queries) == (1, 6)
        rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
        assert rows[0] == ["query", "docid", "rating"] and len(rows) == 1 + report.judgments
        assert not any(row[0].startswith(FORMULA_STARTS) for row in rows[1:])
    else:
        assert [(q.id, q.text) for q in back.queries] == [(q.id, q.text) for q in TRICKY] and back.qrels == TRICKY_QRELS
        assert report.unjudged_written == 1
    if format == "beir":
        assert back.queries == TRICKY


def test_exports_refuse_what_a_format_cannot_carry_and_write_nothing(tmp_path: Path) -> None:
    spaced = QuerySet("deal", (LabelledQuery("q 1", "revenue?", "log"),), {"q 1": {"fact-1": 1}}, "spaced")
    tabbed = QuerySet("deal", (LabelledQuery("q1", "a\tb", "log"),), {}, "tabbed")
    for query_set, fragment in [(spaced, "query id 'q 1'"), (tabbed, "the text of query 'q1'")]:
        with pytest.raises(InvalidInput, match=f"{fragment}.*export it as beir"):
            export_query_set(query_set, "trec", tmp_path / "trec")
        assert list(tmp_path.iterdir()) == []
    export_query_set(spaced, "beir", tmp_path / "beir")  # beir carries it
    assert read_path(tmp_path / "beir").qrels == {"q 1": {"fact-1": 1}}
    with pytest.raises(InvalidInput, match="not an empty folder"):
        export_query_set(spaced, "beir", tmp_path / "beir")
    (tmp_path / "empty").mkdir()
    export_query_set(tabbed, "beir", tmp_path / "empty")  # an empty folder is filled
    assert read_path(tmp_path / "empty").queries == tabbed.queries
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beir", "empty"]  # no staging left behind


@given(st.text(max_size=12))
def test_reversible_cells_undo_exactly_and_never_start_a_formula(text: str) -> None:
    cell = reversible_cell(text)
    assert undo_reversible_cell(cell) == text and not cell.startswith(FORMULA_STARTS)


def test_normalised_text_ignores_case_and_spacing_only() -> None:
    assert normalised("  Straße \t REVENUE\n") == normalised("strasse revenue")
    assert normalised("revenue?") != normalised("revenue")
