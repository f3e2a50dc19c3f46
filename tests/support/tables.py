"""What every table on a page must look like (dashboard/common/tables.py): human headers, no "None"."""

from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

NOT_SHOWN = {"None", "nan", "NaN", "NaT", "<NA>", ""}


def assert_tidy(frame: pd.DataFrame) -> bool:
    """No snake_case header, and no text cell that reads as a missing value: missing text is "—", missing
    numbers (and a column with no value at all) stay NaN / None: Streamlit draws the table's "—" placeholder."""
    snake = [c for c in frame.columns if "_" in str(c)]
    assert not snake, f"snake_case headers: {snake}"
    for column in frame.columns:
        values = list(frame[column])
        text = all(isinstance(v, str) or v is None or (isinstance(v, float) and v != v) for v in values)
        if text and any(isinstance(v, str) for v in values):  # a column of nothing at all is left to the placeholder
            shown = {v if isinstance(v, str) else "None" for v in values}
            assert not shown & NOT_SHOWN, f"{column}: {shown & NOT_SHOWN}"
    return True


def assert_page_tidy(app: AppTest) -> None:
    """Every table on the page: tidy, and drawn with "—" for its missing values."""
    assert app.dataframe, "no table on the page"
    for table in app.dataframe:
        assert table.proto.placeholder == "—"
        assert_tidy(table.value)
