"""CSV exports never hand a spreadsheet a formula (OWASP: a leading ' on text starting = + - @ tab CR)."""

from __future__ import annotations

import csv
import io

import pandas as pd

from dashboard.common.exports import csv_bytes
from pipeline.csv_cells import dicts_to_csv, rows_to_csv, safe_cell
from pipeline.spotcheck.records import VerdictRow
from pipeline.spotcheck.verdicts import CSV_COLUMNS, export_csv

FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+2", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_text_that_starts_a_formula_gets_a_quote() -> None:
    for value in FORMULAS:
        assert safe_cell(value) == "'" + value
    for value in ("plain", "a=b", "", "'already quoted", "1,000"):
        assert safe_cell(value) == value


def test_numbers_stay_numbers_negative_ones_too() -> None:
    for value in (-3, -0.5, 0, 2.5, None, True):
        assert safe_cell(value) is value or safe_cell(value) == value


def test_csv_text_writers() -> None:
    text = dicts_to_csv([{"a": "=1+1", "b": -2.5}], ["a", "b"])
    assert list(csv.reader(io.StringIO(text))) == [["a", "b"], ["'=1+1", "-2.5"]]
    text = rows_to_csv(["q", "score"], [["@cmd", -1], ["fine", 3]])
    assert list(csv.reader(io.StringIO(text))) == [["q", "score"], ["'@cmd", "-1"], ["fine", "3"]]


def test_frame_download_keeps_numeric_columns() -> None:
    frame = pd.DataFrame({"fact": ["=cmd|' /C calc'!A0", "ok"], "rank_change": [-3, 2], "score": [-0.25, 0.5]})
    rows = list(csv.reader(io.StringIO(csv_bytes(frame).decode())))
    assert rows == [["fact", "rank_change", "score"], ["'=cmd|' /C calc'!A0", "-3", "-0.25"], ["ok", "2", "0.5"]]


def test_spotcheck_export_neutralises_hostile_cells() -> None:
    values = {name: "" for name in CSV_COLUMNS}
    values.update(
        {f: '=HYPERLINK("http://evil.example")' for f in ("query", "fact", "document_name", "note", "reviewer")}
    )
    fields = VerdictRow.__dataclass_fields__
    row = VerdictRow(**{k: (0 if fields[k].type in ("int", int) else v) for k, v in values.items()})
    [header, cells] = list(csv.reader(io.StringIO(export_csv([row]))))
    for name in ("query", "fact", "document_name", "note", "reviewer"):
        assert cells[header.index(name)].startswith("'="), name


def test_a_tables_own_csv_button_exports_safe_cells_and_times_as_shown() -> None:
    from dashboard.common.tables import table_csv, tidy

    frame = pd.DataFrame(
        {
            "who": ['=HYPERLINK("http://evil.example","x")', None],
            "at": ["2026-11-23T17:00:59Z", None],
            "moved": [-3, 2],
        }
    )
    rows = list(csv.reader(io.StringIO(table_csv(tidy(frame, times=["at"])).decode())))
    assert rows == [
        ["Who", "At (UTC)", "Moved"],
        ['\'=HYPERLINK("http://evil.example","x")', "2026-11-23 17:00", "-3"],
        ["—", "", "2"],
    ]
