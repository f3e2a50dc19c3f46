"""Backups as the CLI makes them: `lab.backup`. A restore runs with no Lab open (opening it would start the
server on what is replaced): it is `pipeline.api.restore_backup`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.backup.snapshot import BackupResult, back_up

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Backup:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    async def back_up(self, target: Path) -> BackupResult:
        """Copy the data directory's store (and embedded graph) into `target`, whole or not at all."""
        return await back_up(self.lab, target)
