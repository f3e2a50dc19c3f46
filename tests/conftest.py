"""Shared fixtures: one real embedded FalkorDB per test session, in a temporary data directory."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"
os.environ["HF_HUB_OFFLINE"] = "1"
# never let a developer's own keys or Neo4j switch the tests onto a network service
for _name in (
    "VOYAGE_API_KEY",
    "COHERE_API_KEY",
    "CO_API_KEY",
    "COHERE_BASE_URL",
    "CO_API_URL",
    "NEO4J_URI",
    "NEO4J_PASSWORD",
    "FALKORDB_URI",
    "RETRIEVAL_LAB_READ_ONLY",
):
    os.environ.pop(_name, None)

# the dashboard under test (AppTest, browser) reads its settings from the environment: point it at the
# same throwaway data directory, so it shares the session's embedded server and never touches .data/
SESSION_DATA_DIR = Path(tempfile.mkdtemp(prefix="retrieval-lab-test-"))
# the `data_dir` fixture removes it after the session; this covers a process that runs no test (pytest-xdist's
# controller) and a session cut short
atexit.register(shutil.rmtree, SESSION_DATA_DIR, True)
os.environ["RETRIEVAL_LAB_DATA_DIR"] = str(SESSION_DATA_DIR)
os.environ["RETRIEVAL_LAB_EMBEDDER"] = "local"
ADMIN_SECRET = "test-admin-secret"
os.environ["RETRIEVAL_LAB_ADMIN_SECRET"] = ADMIN_SECRET

from pipeline.lab import Lab  # noqa: E402
from pipeline.settings import Settings  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


def make_settings(data_dir: Path, **overrides: object) -> Settings:
    return Settings(data_dir=data_dir, embedder="local", **overrides)


@pytest.fixture(scope="session")
def data_dir() -> Iterator[Path]:
    yield SESSION_DATA_DIR
    shutil.rmtree(SESSION_DATA_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
async def lab(data_dir: Path) -> AsyncIterator[Lab]:
    # held facts (the dashboard's and sweeps' in-memory search) only where a test asks for them: they put facts whose
    # cosine scores tie in uuid order, the graph in its scan's, so a test's expectations would otherwise depend on
    # which test ran before it in this worker (tests/integration/test_held_facts.py holds them)
    lab = await Lab.open(make_settings(data_dir, held_facts_mb=0))
    yield lab
    await lab.close()
    if lab.backend.embedded:
        lab.backend.embedded.stop()


@pytest.fixture(scope="session")
async def demo(lab: Lab) -> str:
    """The demo deal, seeded once per session; returns its group_id."""
    from pipeline.ingest.demo.seed import seed_demo

    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir)
    return "demo"


@pytest.fixture(autouse=True)
def _forget_hosted_failures() -> Iterator[None]:
    """The process remembers Voyage's and Cohere's last failure (for the sidebar); no test inherits another's."""
    from pipeline.rerankers.hosted import LAST_FAILURE

    LAST_FAILURE.clear()
    yield
    LAST_FAILURE.clear()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding a slow test (the crash loops, the browser load) run first: with two workers a file each
    (scripts/test.sh), a minutes-long file left for last would keep one worker busy while the other idles."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
