"""Backups of a data directory and their restore (`python -m pipeline backup DIR` / `restore DIR`).

A backup is a folder: the SQLite store (copied with SQLite's online backup API, so it is one consistent state
even while others write), and, for the embedded graph, its append-only files (`appendonlydir/`: the manifest
and the files it lists) and `falkordb.state.json`, copied at a quiescent point: under the data directory's
admin lock (no admin action or loader is mid-way, so graph and store agree), with no AOF rewrite running or
scheduled, and the manifest the same before and after the copy (else it is copied again). redis appends an
acknowledged command to the AOF before it replies, so the copy holds every acknowledged write. `backup.json`
lists every file with its size and sha256; restore checks them before it changes anything.

On a FalkorDB server or Neo4j only the store is backed up: the graph is its owner's to back up.
"""

from pipeline.backup.layout import BACKUP_MANIFEST, BackupContents
from pipeline.backup.restore import RestoreResult, restore_backup
from pipeline.backup.snapshot import BackupResult, back_up

__all__ = ["BACKUP_MANIFEST", "BackupContents", "BackupResult", "RestoreResult", "back_up", "restore_backup"]
