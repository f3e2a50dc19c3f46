"""A Lab on a throwaway data directory's embedded server, with the demo deal seeded: for the benchmarks that
measure the embedded server itself (durability, server-starts)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from pipeline.api import Lab, get_settings
from pipeline.api.models import EmbeddedFalkorDB
from pipeline.errors import InvalidInput


@contextlib.asynccontextmanager
async def embedded_demo_lab(data_dir: Path, benchmark: str) -> AsyncIterator[tuple[Lab, EmbeddedFalkorDB]]:
    """The Lab and its embedded server; refused in one line when a graph server is configured instead. The
    server is stopped at the end, so its last record is written before the directory is removed."""
    lab = await Lab.open(get_settings().model_copy(update={"data_dir": data_dir}))
    try:
        server = lab.backend.embedded
        if server is None:
            raise InvalidInput(f"{benchmark} measures the embedded server: unset FALKORDB_URI/NEO4J_URI")
        await lab.ingest.seed_demo()
        yield lab, server
    finally:
        await lab.close()
        if lab.backend.embedded is not None:
            lab.backend.embedded.stop()
