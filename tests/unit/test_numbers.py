"""Numbers from files, command lines and URLs: digits 0-9 only, read by one parser (pipeline/numbers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import DataFileError, InvalidInput
from pipeline.evaluation.metrics import parse_metric
from pipeline.ingest.fields import page_field
from pipeline.ingest.jsonl import FieldError
from pipeline.numbers import MAX_INTEGER, decimal_number, whole_number
from pipeline.query_sets.files import read_qrels
from pipeline.retrieval.recipes import DEFAULT_RECIPE
from pipeline.retrieval.setting import Setting, setting

NOT_WHOLE = ["", " 3", "3 ", "+3", "1_000", "1e3", "3.0", "٣", "²", "③", "３", "0x10", "-", "9" * 4_301, "3\n"]


@pytest.mark.parametrize("text", NOT_WHOLE)
def test_only_ascii_digits_are_a_whole_number(text: str) -> None:
    assert whole_number(text) is None
    assert whole_number(text, -10, 10**6, signed=True) is None


def test_whole_numbers_and_their_range() -> None:
    assert whole_number("0") == 0 and whole_number("007") == 7
    assert whole_number(str(MAX_INTEGER)) == MAX_INTEGER
    assert whole_number(str(MAX_INTEGER + 1)) is None  # beyond SQLite's integers: names no row
    assert whole_number("5", 1, 4) is None and whole_number("0", 1) is None
    assert whole_number("-3") is None and whole_number("-3", -5, 5, signed=True) == -3


@pytest.mark.parametrize("text", ["", "nan", "inf", "1e3", "-1", "+1", " 1", "1.", "١", "1.5.2", "1_0"])
def test_only_plain_decimals_are_a_decimal_number(text: str) -> None:
    assert decimal_number(text) is None


def test_decimal_numbers() -> None:
    assert decimal_number("2") == 2.0 and decimal_number("2.5") == 2.5 and decimal_number(".5") == 0.5


def test_every_reader_uses_it() -> None:
    with pytest.raises(FieldError):
        page_field("٣")
    assert page_field(" 41 ") == 41
    with pytest.raises(InvalidInput):
        Setting.parse("local:²:10", "--a")
    with pytest.raises(InvalidInput):
        Setting.parse("local:٥٠:10", "--a")
    assert Setting.parse("local:50:10", "--a") == setting(DEFAULT_RECIPE, 50, "local", 10)
    assert Setting.parse("vector:local:50:10", "--a") == setting("vector", 50, "local", 10)
    for metric in ("ndcg@²", "ndcg@٣", "ndcg@+3", "ndcg@" + "9" * 4_301):
        with pytest.raises(InvalidInput):
            parse_metric(metric)
    assert parse_metric("ndcg@10") == ("ndcg", 10)


def qrels(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "qrels.tsv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("grade", ["1e23", "+3", "٣", "²", "2.0", "three", ""])
def test_a_malformed_grade_on_the_first_line_is_refused_not_taken_for_a_header(tmp_path: Path, grade: str) -> None:
    with pytest.raises(DataFileError, match=r"^qrels.tsv line 1: .*digits 0-9"):
        read_qrels(qrels(tmp_path, f"q1\tp1\t{grade}\nq2\tp2\t2\n"))


@pytest.mark.parametrize(
    "header", ["query-id\tcorpus-id\tscore", "query_id\tcorpus_id\tscore", "qid\tdocid\trel", "\ufeffquery-id\tdoc\ts"]
)
def test_a_header_is_skipped_when_it_is_one(tmp_path: Path, header: str) -> None:
    assert read_qrels(qrels(tmp_path, f"{header}\nq1\tp1\t2\nq2\tp2\t-1\n")) == {"q1": {"p1": 2}, "q2": {"p2": -1}}
