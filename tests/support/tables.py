"""What every table on a page must look like (dashboard/common/tables.py): human headers, no "None"."""

from __future__ import annotations

import pandas as pd

NOT_SHOWN = {"None", "nan", "NaN", "NaT", "<NA>", ""}


def assert_tidy(frame: pd.DataFrame) -> bool:
    """No snake_case header, and no text cell that reads as a missing value: missing text is "—", missing
    numbers stay NaN (Streamlit draws the table's "—" placeholder for them)."""
    snake = [c for c in frame.columns if "_" in str(c)]
    assert not snake, f"snake_case headers: {snake}"
    for column in frame.columns:
        values = list(frame[column])
        if all(isinstance(v, str) or v is None or (isinstance(v, float) and v != v) for v in values):  # text
            shown = {v if isinstance(v, str) else "None" for v in values}
            assert not shown & NOT_SHOWN, f"{column}: {shown & NOT_SHOWN}"
    return True
