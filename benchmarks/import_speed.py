"""`python -m benchmarks import-speed`: `import-beir` against the time to embed the same passages alone.

A slice of a BEIR folder (the first `--limit` passages, with the queries and qrels that name only them) is
imported into a throwaway data directory through the importer the CLI uses, with a progress callback; in the
same run, the same passage texts are embedded alone with the same embedder, in the importer's batch size.
The two are measured alternately (`--repeat` times each, a fresh deal name per import) and the medians give
the ratio. A second import of the same folder must do nothing (idempotence), and is timed too.

`--long` first joins neighbouring passages of one document into passages of about 1,300 characters.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pipeline.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "tatqa"
LONG_CHARS = 1_300


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _document(row: dict[str, Any]) -> str:
    return str(row.get("doc_name") or row.get("report_id") or row.get("title") or "")


def join_long(rows: list[dict[str, Any]], chars: int = LONG_CHARS) -> list[dict[str, Any]]:
    """Neighbouring passages of one document joined until each is about `chars` long (ids of the first)."""
    joined: list[dict[str, Any]] = []
    for row in rows:
        last = joined[-1] if joined else None
        if last is not None and _document(last) == _document(row) and len(last["text"]) < chars:
            last["text"] = f"{last['text']}\n{row['text']}"
            last["_parts"].append(str(row.get("_id", row.get("id"))))
        else:
            joined.append({**row, "_parts": [str(row.get("_id", row.get("id")))]})
    return joined


def write_slice(source: Path, target: Path, limit: int, long: bool) -> list[str]:
    """A BEIR folder in `target` of the first `limit` passages of `source` (joined first if `long`); the
    queries and qrels kept are those judging only passages in it. Returns the passage texts."""
    rows = _rows(source / "corpus.jsonl")
    if long:
        rows = join_long(rows)
    rows = rows[:limit]
    part_of = {part: str(r.get("_id", r.get("id"))) for r in rows for part in r.get("_parts", [])}
    ids = {str(r.get("_id", r.get("id"))) for r in rows}
    qrels: list[tuple[str, str, str]] = []
    for line in (source / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query, passage, score = line.split("\t")[:3]
        passage = part_of.get(passage, passage)
        if passage in ids:
            qrels.append((query, passage, score))
    judged = {q for q, _, _ in qrels}
    queries = [q for q in _rows(source / "queries.jsonl") if str(q.get("_id", q.get("id"))) in judged]
    target.mkdir(parents=True)
    corpus = [{k: v for k, v in r.items() if k != "_parts"} for r in rows]
    (target / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus), encoding="utf-8")
    (target / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    unique = sorted(set(qrels))
    (target / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{p}\t{s}\n" for q, p, s in unique), encoding="utf-8"
    )
    return [f"{r['title']}: {r['text']}" if r.get("title") else str(r["text"]) for r in corpus]


async def _measure(folder: Path, data_dir: Path, texts: list[str], repeat: int) -> dict[str, Any]:
    from pipeline.api import Lab, get_settings
    from pipeline.api.models import WRITE_BATCH

    settings = get_settings().model_copy(update={"data_dir": data_dir})
    lab = await Lab.open(settings)
    try:
        await lab.embedder.embed_documents(texts[:32])  # load the model before either is timed
        imports, embeds, reports = [], [], []
        calls: list[tuple[int, int]] = []  # the progress reports of the import being timed
        for attempt in range(repeat):
            started = time.perf_counter()
            for i in range(0, len(texts), WRITE_BATCH):
                await lab.embedder.embed_documents(texts[i : i + WRITE_BATCH])
            embeds.append(time.perf_counter() - started)

            calls.clear()
            started = time.perf_counter()
            group = f"speed{attempt}"
            result = await lab.ingest.import_beir(folder, group, report=lambda s: calls.append((s.done, s.total)))
            imports.append(time.perf_counter() - started)
            reports.append(len(calls))
            if result.skipped or not calls or calls[-1] != (len(texts), len(texts)):
                raise InvalidInput(f"the import did not report its progress to the end: {calls[-3:]}")

        started = time.perf_counter()
        again = await lab.ingest.import_beir(folder, "speed0")
        again_s = time.perf_counter() - started
        if not again.skipped:
            raise InvalidInput("a second import of the same folder was not skipped")
    finally:
        await lab.close()
        if lab.backend.embedded is not None:  # stopped before its directory is removed: it writes until it stops
            lab.backend.embedded.stop()
    import_s, embed_s = statistics.median(imports), statistics.median(embeds)
    return {
        "import_s": [round(s, 2) for s in imports],
        "embed_s": [round(s, 2) for s in embeds],
        "import_s_median": round(import_s, 2),
        "embed_s_median": round(embed_s, 2),
        "ratio": round(import_s / embed_s, 2),
        "progress_reports": reports[0],
        "reimport_skipped_s": round(again_s, 2),
    }


def import_speed(corpus: Path, limit: int, long: bool, repeat: int) -> dict[str, Any]:
    if not (corpus / "corpus.jsonl").is_file():
        raise InvalidInput(f"--corpus {corpus}: no corpus.jsonl there")
    with tempfile.TemporaryDirectory(prefix="retrieval-lab-import-speed-") as tmp:
        folder = Path(tmp) / "beir"
        texts = write_slice(corpus, folder, limit, long)
        figures = asyncio.run(_measure(folder, Path(tmp) / "data", texts, repeat))
    chars = [len(t) for t in texts]
    return {
        "corpus": str(corpus),
        "long": long,
        "passages": len(texts),
        "mean_chars": round(statistics.mean(chars)),
        "repeat": repeat,
        **figures,
    }


def render_import_speed(result: dict[str, Any]) -> str:
    kind = "joined to ~1,300 characters" if result["long"] else "as they are"
    return (
        f"{result['passages']:,} passages of {result['corpus']} ({kind}; mean {result['mean_chars']:,} characters)\n"
        f"  import-beir:            {result['import_s_median']:.2f} s (median of {result['repeat']}: "
        f"{result['import_s']})\n"
        f"  embedding them alone:   {result['embed_s_median']:.2f} s ({result['embed_s']})\n"
        f"  ratio {result['ratio']:.2f}x (goal <= 1.5x) · progress reported {result['progress_reports']} times · "
        f"re-import of the same files skipped in {result['reimport_skipped_s']:.2f} s"
    )
