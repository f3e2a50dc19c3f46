"""Tables offered as CSV downloads: every text cell made safe for spreadsheets (no formula injection)."""

from __future__ import annotations

import pandas as pd

from pipeline.api import safe_cell


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """`frame` as UTF-8 CSV without its index; text cells a spreadsheet would run get a leading `'`."""
    return frame.map(safe_cell).to_csv(index=False).encode()
