"""Tables a person reads at a glance: the one way every page shows a table.

- Human column names: an explicit mapping per table where the words matter, else snake_case as words.
- "—" for every missing value: text cells are filled with it; numbers stay numbers (so a column sorts as
  numbers) and Streamlit draws its `placeholder` for the missing ones.
- Times as real datetimes, shown in UTC to the minute ("2026-11-23 17:00", the format of `pipeline.utc.stamp`,
  used by captions and pickers), the zone said once, in the header ("When (UTC)"). Dates alone stay text.
- A "Download CSV" button under the table, for the columns shown, built when clicked, every text cell made
  safe for spreadsheets (`dashboard/common/exports.py`). The grid's own toolbar export and copy, which hand
  cells over raw (a name `=HYPERLINK(...)` would arrive as a live formula), are off
  (`client.disableDataExport` in .streamlit/config.toml). A table beside a page export of its own passes
  `export=False`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from dashboard.common.exports import csv_bytes
from pipeline.api import day, stamp
from pipeline.api.models import MISSING

__all__ = ["MISSING", "TIME_FORMAT", "day", "human", "show_table", "stamp", "table_csv", "tidy", "utc_times"]

TIME_FORMAT = "YYYY-MM-DD HH:mm"  # Streamlit's (moment.js) spelling of pipeline.utc.stamp's "%Y-%m-%d %H:%M"
UTC = " (UTC)"
_KEEP_CASE = {"k", "n", "p", "p50", "p95", "p99", "bm25", "bfs", "rrf", "id", "uuid"}  # never capitalised


def human(name: str) -> str:
    """The fallback header, in sentence case: "rank_before" -> "Rank before", "query" -> "Query"; a first word
    that is a symbol or a term ("p50 ms", "ndcg@10", "N") is kept as it is."""
    words = name.replace("_", " ").strip()
    first = words.split(" ", 1)[0]
    if not (first.isalpha() and first.islower()) or first in _KEEP_CASE:
        return words
    return words[:1].upper() + words[1:]


def _header(column: str, names: Mapping[str, str], times: set[str]) -> str:
    shown = names.get(column) or human(column)
    return shown + UTC if column in times and "UTC" not in shown else shown


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float):
        return value != value  # NaN
    return isinstance(value, str) and not value.strip()


def utc_times(values: pd.Series) -> pd.Series:
    """ISO strings (a "Z", an offset or none, read as UTC) or datetimes as UTC datetimes; missing -> NaT."""
    return pd.to_datetime(values.where(~values.map(_missing), None), utc=True, format="ISO8601", errors="coerce")


def _text_column(values: pd.Series) -> bool:
    """A column of strings (with some missing): filled with "—". Columns holding numbers or booleans are
    left to the placeholder, so they keep their type; so is a column with no value at all (of no known type)."""
    if values.dtype != object and not pd.api.types.is_string_dtype(values):
        return False
    present = [v for v in values if isinstance(v, str) or not _missing(v)]  # "" is a (blank) string
    return bool(present) and all(isinstance(v, str) for v in present)


def tidy(
    frame: pd.DataFrame,
    names: Mapping[str, str] | None = None,
    *,
    times: Iterable[str] = (),
    dates: Iterable[str] = (),
    links: Iterable[str] = (),
) -> pd.DataFrame:
    """`frame` as shown: time columns as UTC datetimes, date columns as "2026-11-23", missing text as "—",
    columns renamed (time columns' headers end in "(UTC)"). `links` (URL columns) keep their missing cells
    empty: no link is drawn there. The caller's frame is left as it is."""
    names, times, dates, links = names or {}, set(times), set(dates), set(links)
    out = frame.copy(deep=False)
    for column in out.columns:
        if column in times:
            out[column] = utc_times(out[column])
        elif column in dates:
            out[column] = out[column].map(lambda v: MISSING if _missing(v) else day(v)).astype(object)
        elif column not in links and _text_column(out[column]):
            out[column] = out[column].map(lambda v: MISSING if _missing(v) else v).astype(object)
    return out.rename(columns={c: _header(c, names, times) for c in out.columns})


def show_table(
    data: pd.DataFrame | Iterable[Mapping[str, Any]],
    key: str,
    *,
    names: Mapping[str, str] | None = None,
    times: Iterable[str] = (),
    dates: Iterable[str] = (),
    config: Mapping[str, Any] | None = None,
    order: Iterable[str] | None = None,
    style: Callable[[Styler], Styler] | None = None,
    where: Any = None,
    export: bool = True,
    **kwargs: Any,
) -> None:
    """`st.dataframe` (on `where`, a column or container, if given) of the tidied table, with its CSV button
    unless `export` is False. `config` and `order` name columns as the frame does (`None` hides one); `style`
    gets the tidied table's Styler (human names)."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(list(data))
    names, times = names or {}, set(times)
    header = {c: _header(c, names, times) for c in frame.columns}
    column_config: dict[str, Any] = {
        header[c]: st.column_config.DatetimeColumn(format=TIME_FORMAT) for c in times if c in header
    }
    column_config.update({header.get(c, c): v for c, v in (config or {}).items()})
    links = [
        c for c, v in (config or {}).items() if isinstance(v, dict) and v.get("type_config", {}).get("type") == "link"
    ]
    shown = tidy(frame, names, times=times, dates=dates, links=links)
    (where or st).dataframe(
        style(shown.style) if style is not None else shown,
        key=key,
        hide_index=kwargs.pop("hide_index", True),
        column_config=column_config,
        column_order=[header.get(c, c) for c in order] if order is not None else None,
        placeholder=MISSING,
        **kwargs,
    )
    if export:
        hidden = {header.get(c, c) for c, v in (config or {}).items() if v is None}
        columns = [header.get(c, c) for c in order] if order is not None else list(shown.columns)
        (where or st).download_button(
            "Download CSV",
            lambda: table_csv(shown[[c for c in columns if c in shown.columns and c not in hidden]]),
            file_name=f"{key.replace('.', '-')}.csv",
            mime="text/csv",
            key=f"{key}.csv",
            icon=":material/download:",
            type="tertiary",
            help="This table as CSV; text a spreadsheet would run as a formula starts with ' in the file.",
            on_click="ignore",
        )


def table_csv(shown: pd.DataFrame) -> bytes:
    """A tidied table as its CSV download: times as the table shows them (UTC, to the minute), cells made safe."""
    out = shown.copy(deep=False)
    for column in out.columns:
        if isinstance(out[column].dtype, pd.DatetimeTZDtype):
            out[column] = out[column].map(lambda v: "" if v is pd.NaT else v.strftime("%Y-%m-%d %H:%M"))
    return csv_bytes(out)
