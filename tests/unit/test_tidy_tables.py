"""The one way tables and times are shown: human headers, "—" for missing, one UTC timestamp format."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest

from dashboard.common.tables import MISSING, human, tidy, utc_times
from pipeline.utc import day, stamp


@pytest.mark.parametrize(
    "value",
    ["2026-11-23T17:00:00Z", "2026-11-23T17:00:42+00:00", "2026-11-23T17:00", "2026-11-23T18:00:05.123+01:00"],
)
def test_every_stored_time_format_is_shown_one_way(value: str) -> None:
    assert stamp(value) == "2026-11-23 17:00"


def test_stamp_reads_datetimes_converts_to_utc_and_keeps_seconds_when_asked() -> None:
    paris = timezone(timedelta(hours=1))
    assert stamp(datetime(2026, 11, 23, 18, 0, 7, tzinfo=paris)) == "2026-11-23 17:00"
    assert stamp(datetime(2026, 11, 23, 17, 0, 7, tzinfo=UTC), seconds=True) == "2026-11-23 17:00:07"
    assert stamp(None) == stamp("") == MISSING == "—"
    assert stamp("not a time") == "not a time"  # a damaged stored value is shown, never hidden


def test_a_date_alone_stays_a_date() -> None:
    assert day("2026-11-23T23:30:00-02:00") == "2026-11-24"
    assert day(date(2026, 11, 23)) == "2026-11-23"
    assert day(None) == MISSING


def test_tidy_names_columns_fills_missing_text_and_keeps_numbers_numeric() -> None:
    frame = pd.DataFrame(
        {
            "rank_before": [1, 2],
            "score": [0.5, np.nan],
            "grade": pd.array([3, None], dtype="Int64"),
            "note": ["ok", None],
            "fallback": ["", "timeout"],
            "created_at": ["2026-11-23T17:00:00Z", None],
            "flag": [True, False],
        }
    )
    shown = tidy(frame, {"score": "Reranker score"}, times=["created_at"])
    assert list(shown.columns) == [
        "Rank before",
        "Reranker score",
        "Grade",
        "Note",
        "Fallback",
        "Created at (UTC)",
        "Flag",
    ]
    assert list(shown["Note"]) == ["ok", MISSING] and list(shown["Fallback"]) == [MISSING, "timeout"]
    assert pd.api.types.is_float_dtype(shown["Reranker score"]) and np.isnan(shown["Reranker score"][1])
    assert str(shown["Grade"].dtype) == "Int64" and shown["Grade"].isna()[1]
    assert shown["Created at (UTC)"][0] == pd.Timestamp("2026-11-23 17:00", tz="UTC")
    assert pd.isna(shown["Created at (UTC)"][1])
    assert shown["Flag"].dtype == bool
    assert frame.columns[0] == "rank_before" and pd.isna(frame["note"][1])  # the caller's frame is untouched
    cells = {str(v) for column in shown.select_dtypes(exclude="number").columns for v in shown[column]}
    assert not cells & {"None", "nan", ""}


def test_a_mixed_or_empty_column_is_left_to_the_placeholder_a_blank_text_one_is_filled() -> None:
    shown = tidy(pd.DataFrame({"value": [1, "a", None], "nothing": [None, None, None], "blank": ["", "", ""]}))
    assert shown["Value"][2] is None  # not all text: no "—" string mixed into it
    assert shown["Nothing"].isna().all()  # no value at all: of no known type (a score no reranker gave)
    assert list(shown["Blank"]) == [MISSING] * 3


def test_human_headers() -> None:
    assert human("in_top_k_after") == "In top k after"
    assert human("p50_ms") == "p50 ms" and human("bm25_rank") == "bm25 rank"
    assert human("When (UTC)") == "When (UTC)" and human("query") == "Query" and human("ndcg@10") == "ndcg@10"


def test_utc_times_read_offsets_and_z() -> None:
    times = utc_times(pd.Series(["2026-11-23T18:00:00+01:00", "2026-11-23T17:00:00Z", "", None]))
    assert list(times[:2]) == [pd.Timestamp("2026-11-23 17:00", tz="UTC")] * 2 and times[2:].isna().all()


def test_date_columns_show_the_day_only() -> None:
    frame = pd.DataFrame(
        {"valid_at": ["2026-11-23T17:00:00Z", None], "invalid_at": [datetime(2026, 1, 2, tzinfo=UTC), ""]}
    )
    shown = tidy(frame, dates=["valid_at", "invalid_at"])
    assert list(shown["Valid at"]) == ["2026-11-23", MISSING] and list(shown["Invalid at"]) == ["2026-01-02", MISSING]
