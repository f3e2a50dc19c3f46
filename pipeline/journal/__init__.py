"""A write-ahead journal for admin actions that span the graph and SQLite, and the cross-process admin lock.

An action takes the admin lock (`lock.py`), finishes whatever a killed process left open (`recovery.py`),
validates, then journals its intent and the exact before-state (`begin`) before it touches the graph, records
each step as it completes, and commits the journal entry in the same SQLite transaction as its feature record
and audit entry. Each kind of action registers how to roll back (or, where rollback is impossible, complete)
an entry that never committed (`kinds.py`).
"""
