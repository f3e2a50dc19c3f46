"""Import a BEIR-style folder (`corpus.jsonl`, `queries.jsonl`, `qrels.tsv`) as a deal of its own.

Each passage becomes an episode (the citation) and one fact carrying the passage text, from a node
for its document to a node for the passage; the fact keeps the passage id (`rl_key`), so qrels map to
facts. Everything is checked before anything is written; re-importing the same files does nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.deals import DealRecord, get_deal, validate_group_id
from pipeline.embedders.base import LabEmbedder
from pipeline.errors import DataFileError
from pipeline.graph.backend import GraphBackend
from pipeline.ingest.fields import date_field, page_field
from pipeline.ingest.jsonl import read_jsonl, text_field
from pipeline.ingest.loading import DealContent, EntitySpec, EpisodeSpec, FactSpec, write_deal
from pipeline.ingest.progress import Report, Step
from pipeline.ingest.rebuild import Announce, Rebuild, check_rebuild, rebuild_deal
from pipeline.query_sets import save_keyed_files
from pipeline.query_sets.files import check_references, read_qrels, read_queries
from pipeline.store import open_store
from pipeline.utc import now_iso

LOADER_VERSION = "1"


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    title: str
    doc_name: str
    page: int | None
    date: datetime | None


@dataclass(frozen=True)
class ImportResult:
    group_id: str
    skipped: bool
    passages: int
    queries: int
    judgments: int


def _passage(row: Any, folder_name: str) -> Passage:
    """A corpus row; id, text, title and document name must be text (an id may be a whole number), never a list
    or null stored as its Python spelling."""
    pid, text = text_field(row, "_id" if "_id" in row else "id", ids=True), text_field(row, "text")
    page, date = page_field(row.get("page")), date_field(row.get("date"))
    title = text_field(row, "title", "")
    doc = text_field(row, "doc_name", "") or text_field(row, "report_id", "", ids=True) or title or folder_name
    return Passage(pid, text, title, doc, page, date)


def read_corpus(path: Path) -> list[Passage]:
    passages: list[Passage] = []
    seen: set[str] = set()
    for number, passage in read_jsonl(path, "passage", lambda row: _passage(row, path.parent.name)):
        if passage.id in seen:
            raise DataFileError(f"{path.name} line {number}: duplicate passage id {passage.id!r}")
        if not passage.text.strip():
            raise DataFileError(f"{path.name} line {number}: passage {passage.id!r} has no text")
        seen.add(passage.id)
        passages.append(passage)
    if not passages:
        raise DataFileError(f"{path.name}: no passages")
    return passages


def _files(folder: Path) -> tuple[Path, Path, Path]:
    files = (folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels.tsv")
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise DataFileError(f"{folder}: missing {', '.join(missing)}")
    return files


def build_content(passages: list[Passage], imported_at: datetime) -> DealContent:
    docs = sorted({p.doc_name for p in passages})
    entities = [EntitySpec(f"doc:{d}", d, ("Document",), f"Source document {d}") for d in docs]
    entities += [EntitySpec(f"passage:{p.id}", f"Passage {p.id}", ("Passage",)) for p in passages]
    episodes = [
        EpisodeSpec(
            key=p.id,
            name=f"{p.doc_name} passage {p.id}",
            content=p.text,
            channel="document",
            valid_at=p.date or imported_at,
            doc_id=p.doc_name,
            doc_name=p.doc_name,
            page=p.page,
        )
        for p in passages
    ]
    facts = [
        FactSpec(
            key=p.id,
            source=f"doc:{p.doc_name}",
            target=f"passage:{p.id}",
            relation="CONTAINS_PASSAGE",
            fact=f"{p.title}: {p.text}" if p.title else p.text,
            episodes=(p.id,),
            valid_at=p.date,
        )
        for p in passages
    ]
    return DealContent(episodes, entities, facts)


async def import_beir(
    backend: GraphBackend,
    embedder: LabEmbedder,
    data_dir: Path,
    folder: Path,
    group_id: str,
    replace: bool = False,
    report: Report | None = None,
    actor: str = "loader",
    announce: Announce | None = None,
) -> ImportResult:
    """Import `folder` as deal `group_id`. Into an existing deal of another source, or one an admin changed
    (corrections, merges), only with `replace` (the loss is then `announce`d and audited). `report` hears each
    step, from the files read and checked (a refusal stays one line) to the last batch of facts written."""
    validate_group_id(group_id)
    backend.require_writable(group_id, "import-beir")
    corpus_file, queries_file, qrels_file = _files(folder)
    passages = read_corpus(corpus_file)
    queries, qrels = read_queries(queries_file), read_qrels(qrels_file)
    passage_ids = {p.id for p in passages}
    check_references(queries, qrels, passage_ids, str(folder))
    result = ImportResult(group_id, False, len(passages), len(queries), sum(map(len, qrels.values())))

    digest = hashlib.sha256(LOADER_VERSION.encode())
    for path in (corpus_file, queries_file, qrels_file):
        digest.update(path.read_bytes())
    digest.update(embedder.info.describe().encode())
    content_hash = digest.hexdigest()[:16]
    source = f"beir:{folder.resolve().name}"

    store = open_store(data_dir)
    existing = await get_deal(backend, store, group_id)
    if existing and existing.source == source and existing.content_hash == content_hash:
        save_keyed_files(store, group_id, queries_file, qrels_file, "beir", passage_ids)
        return ImportResult(**{**result.__dict__, "skipped": True})
    record = DealRecord(
        group_id=group_id,
        name=f"{folder.resolve().name} (BEIR import)",
        description=f"{len(passages)} passages, {len(queries)} queries from {folder.resolve().name}",
        source=source,
        embedder_model=embedder.info.model,
        embedder_dim=embedder.info.dim,
        content_hash=content_hash,
        created_at=now_iso(),
    )
    plan = Rebuild(record, "import-beir", replace, actor, facts=len(passages))
    await check_rebuild(backend, store, existing, plan)
    if report is not None:  # read and checked, nothing written: from here on a failure is not bad input
        report(Step("reading", "passages", len(passages), len(passages)))

    async def write(track: Report) -> None:
        await write_deal(backend, group_id, build_content(passages, datetime.now(UTC)), embedder, track)
        await backend.compact()
        save_keyed_files(store, group_id, queries_file, qrels_file, "beir", passage_ids)

    await rebuild_deal(backend, store, existing, plan, write, announce, report)
    return result
