"""`import-beir` reports from its first step, the passages read and checked, then each phase before its work, so
the first line comes before any embedding finishes (the bar it replaces appeared only after the first 500 facts were
embedded and written: ~80 silent seconds on TAT-QA). Checked by the order of events, not by timing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.embedders.base import LabEmbedder
from pipeline.ingest.beir import import_beir
from pipeline.ingest.progress import Step
from pipeline.lab import Lab
from tests.conftest import FIXTURES

MINI = FIXTURES / "beir_mini"
PASSAGES = sum(1 for line in (MINI / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())


class LoggingEmbedder(LabEmbedder):
    """The lab's embedder, logging each batch of documents it finishes embedding."""

    def __init__(self, inner: LabEmbedder, events: list[Any]) -> None:
        self.inner, self.events, self.info = inner, events, inner.info

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = await self.inner.embed_documents(texts)
        self.events.append(("embedded", len(texts)))
        return vectors

    async def embed_query(self, text: str) -> list[float]:
        return await self.inner.embed_query(text)


async def test_the_first_report_comes_before_any_embedding_finishes(lab: Lab, data_dir: Path) -> None:
    events: list[Any] = []
    await import_beir(
        lab.backend, LoggingEmbedder(lab.embedder, events), data_dir, MINI, "progress_order", report=events.append
    )
    steps = [e for e in events if isinstance(e, Step)]
    first_embedding_done = next(i for i, e in enumerate(events) if not isinstance(e, Step))
    assert isinstance(events[0], Step) and events[0].phase == "reading"
    assert [(s.phase, s.what) for s in steps[:2]] == [
        ("reading", "passages"),
        ("embedding", "entity names"),
    ]
    assert first_embedding_done == 2  # reading, then "embedding entity names" before that work, not after
    phases = [(s.phase, s.what) for s in steps]
    assert phases.index(("embedding", "facts")) < phases.index(("writing", "facts"))
    last = steps[-1]
    assert (last.phase, last.what, last.done, last.total) == ("writing", "facts", PASSAGES, PASSAGES)
