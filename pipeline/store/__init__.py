"""The SQLite store in the data directory: connection, transactions, migrations.

Each feature keeps its own SQL in its `repo.py` (history, evaluation, spotcheck, audit, corrections, merges).
"""

from pipeline.store.db import Store, open_store, store_path

__all__ = ["Store", "open_store", "store_path"]
