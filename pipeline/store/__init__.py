"""The SQLite store in the data directory: audit log, runs, verdicts, experiments."""

from pipeline.store.db import Store, open_store

__all__ = ["Store", "open_store"]
