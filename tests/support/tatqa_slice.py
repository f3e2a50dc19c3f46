"""A fixed, seeded slice of TAT-QA's test split, written as a BEIR folder and imported with the real `import_beir`,
for golden-answer tests on real data (issue 37; tests/integration/test_golden_tatqa.py).

The slice holds every test-split passage of `REPORTS` annual-report pages picked at random with `SEED` from the test
split's 277, every test query of those pages and every judgment of those queries: 734 passages, 750 queries, 999
judgments (all grade 1: sparse). TAT-QA's questions do not name the company ("What was the revenue in 2019?"), so
the other pages' passages are the distractors that make retrieval hard; a slice of a few pages would hand every
question its answer. The data is `../shared/data/tatqa` beside the repository (part of the CI layout): when it is
missing, `write_slice` raises `TatqaMissing` and the fixture fails the test saying so; it never skips.

For other tests (e.g. `pipeline gate` on the slice):

- `write_slice(dest)` writes `dest/corpus.jsonl`, `queries.jsonl` and `qrels.tsv` and returns a `Slice` (folder,
  counts); the same arguments always write the same bytes. The deal records its source as `beir:<folder name>`;
  `python -m pipeline import-beir DEST --group tatqa_golden` imports the folder as well.
- `await import_slice(lab, folder, group=GROUP)` imports it with `import_beir` (a no-op when the same files are in).
- the session fixture `tatqa_golden` does both once per session (the folder in pytest's temporary directory, the
  deal in the session's Lab) and returns the `Slice` with its `group_id`. Use it from a test module with
  `from tests.support.tatqa_slice import tatqa_golden  # noqa: F401 (the session fixture)`; tests that take it
  share one import per session.

Size: on this 2-core machine, quiet, the import takes about 40 s (embedding 734 passages and 859 entity names with
the local MiniLM is most of it) and the golden sweep (`SAMPLE` queries x {vector, graphiti-default} x {none, local},
N=50, k=10) about 9 s. Fewer pages made the reranker's measured lift depend on the sample drawn (90 pages: +23% to
+38% over ten samples of 120); figures in the test module's docstring.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from pipeline.ingest.beir import ImportResult, import_beir
from pipeline.lab import Lab

TATQA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tatqa"
# no hyphen: graphiti's own FalkorDB full-text query finds nothing in a group whose id holds one (its escaped
# `@group_id:"tatqa\\-golden"` filter), so a module exported for such a deal would run graphiti's search without BM25
GROUP = "tatqa_golden"
SPLIT = "test"
FILES = ("corpus.jsonl", "queries.jsonl", "qrels.tsv")
REPORTS = 125  # report pages of the test split (of 277) in the slice
SEED = 37  # picks the pages
SAMPLE = 120  # queries a golden sweep runs on: a seeded sample (SweepSpec(sample=SAMPLE, seed=0)) of the slice's


class TatqaMissing(FileNotFoundError):
    """The TAT-QA folder the golden tests need is absent or incomplete."""


@dataclass(frozen=True)
class Slice:
    folder: Path
    reports: int
    passages: int
    queries: int
    judgments: int
    group_id: str = ""  # set once imported


def tatqa_missing(source: Path | None = None) -> str | None:
    """Why the TAT-QA folder (default `TATQA`) cannot give a slice, in one sentence; None when it can."""
    source = source or TATQA
    missing = [name for name in FILES if not (source / name).is_file()]
    if not missing:
        return None
    return (
        f"TAT-QA data missing: {source} lacks {', '.join(missing)}. The golden-answer tests need the CI layout's "
        f"shared data folder beside the repository ({TATQA}: {', '.join(FILES)})."
    )


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _lines(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def write_slice(dest: Path, reports: int = REPORTS, seed: int = SEED, source: Path | None = None) -> Slice:
    """Write the slice as a BEIR folder at `dest` (created; files overwritten): every `SPLIT` passage of `reports`
    report pages chosen with `seed`, every `SPLIT` query of those pages, and their judgments, in the source's order.
    `source`: a TAT-QA folder as in the shared data (default `TATQA`). Raises `TatqaMissing` when it lacks a file."""
    source = source or TATQA
    why = tatqa_missing(source)
    if why:
        raise TatqaMissing(why)
    corpus_file, queries_file, qrels_file = (source / name for name in FILES)
    corpus = [row for row in _rows(corpus_file) if row["split"] == SPLIT]
    pages = sorted({str(row["report_id"]) for row in corpus})
    if not 1 <= reports <= len(pages):
        raise ValueError(f"reports must be between 1 and {len(pages)}; got {reports}")
    chosen = set(random.Random(seed).sample(pages, reports))
    passages = [row for row in corpus if row["report_id"] in chosen]
    queries = [row for row in _rows(queries_file) if row["split"] == SPLIT and row["report_id"] in chosen]
    passage_ids, query_ids = {row["id"] for row in passages}, {row["id"] for row in queries}
    header, *lines = qrels_file.read_text(encoding="utf-8").splitlines()
    judged = [line for line in lines if line.split("\t")[0] in query_ids]
    dangling = [line for line in judged if line.split("\t")[1] not in passage_ids]
    if dangling:  # a test question judged against a passage of another page or split: the slice would lie
        raise ValueError(f"{len(dangling)} judgments of the slice's queries name passages outside it: {dangling[:3]}")
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "corpus.jsonl").write_text(_lines(passages), encoding="utf-8")
    (dest / "queries.jsonl").write_text(_lines(queries), encoding="utf-8")
    (dest / "qrels.tsv").write_text("".join(f"{line}\n" for line in (header, *judged)), encoding="utf-8")
    return Slice(dest, reports, len(passages), len(queries), len(judged))


async def import_slice(lab: Lab, folder: Path, group: str = GROUP) -> ImportResult:
    """Import the slice at `folder` into `lab` as deal `group` with the real BEIR importer (a no-op when the same
    files are there already)."""
    return await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, folder, group)


@pytest.fixture(scope="session")
async def tatqa_golden(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Slice:
    """The slice, written into a temporary folder and imported as deal `GROUP` into the session's Lab, once per session.
    Fails (never skips) when the TAT-QA data is missing."""
    why = tatqa_missing()
    if why:
        pytest.fail(why, pytrace=False)
    written = write_slice(tmp_path_factory.mktemp("tatqa") / GROUP)
    result = await import_slice(lab, written.folder)
    assert (result.passages, result.queries, result.judgments) == (
        written.passages,
        written.queries,
        written.judgments,
    ), result
    return replace(written, group_id=result.group_id)
