"""The admin gate's state: failed unlocks throttled with growing delays across sessions and processes
(`unlock.py` decides, `repo.py` keeps the counter in the store)."""
