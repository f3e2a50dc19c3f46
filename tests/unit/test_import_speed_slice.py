"""The import-speed benchmark's corpus slices: long passages joined within a document, qrels kept consistent."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.import_speed import join_long, write_slice
from pipeline.ingest.beir import read_corpus
from pipeline.query_sets.files import check_references, read_qrels, read_queries


def write_beir(folder: Path) -> None:
    folder.mkdir()
    rows = [{"_id": f"d{d}p{p}", "text": f"doc {d} passage {p} " + "x" * 400, "doc_name": f"d{d}"} for d in range(3)
            for p in range(5)]  # fmt: skip
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    queries = [{"_id": f"q{i}", "text": f"question {i}"} for i in range(15)]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i // 5}p{i % 5}\t1\n" for i in range(15))
    )


def test_long_passages_join_neighbours_of_one_document_only() -> None:
    rows = [{"_id": f"{d}-{p}", "text": "y" * 500, "doc_name": d} for d in "ab" for p in range(4)]
    joined = join_long(rows, chars=1_300)
    assert [r["_parts"] for r in joined] == [["a-0", "a-1", "a-2"], ["a-3"], ["b-0", "b-1", "b-2"], ["b-3"]]
    assert len(joined[0]["text"]) == 3 * 500 + 2


def test_a_slice_is_a_valid_beir_folder_with_only_its_passages_judged(tmp_path: Path) -> None:
    write_beir(tmp_path / "src")
    texts = write_slice(tmp_path / "src", tmp_path / "plain", limit=7, long=False)
    assert len(texts) == 7
    passages = read_corpus(tmp_path / "plain" / "corpus.jsonl")
    queries, qrels = read_queries(tmp_path / "plain" / "queries.jsonl"), read_qrels(tmp_path / "plain" / "qrels.tsv")
    check_references(queries, qrels, {p.id for p in passages}, "slice")  # raises on a dangling id
    assert len(queries) == 7

    texts = write_slice(tmp_path / "src", tmp_path / "long", limit=2, long=True)
    assert [len(t) for t in texts] == [4 * 416 + 3, 416]  # joined while under 1,300 characters; then the rest
    passages = read_corpus(tmp_path / "long" / "corpus.jsonl")
    qrels = read_qrels(tmp_path / "long" / "qrels.tsv")
    check_references(read_queries(tmp_path / "long" / "queries.jsonl"), qrels, {p.id for p in passages}, "long")
    assert [p.id for p in passages] == ["d0p0", "d0p4"]
    assert sum(map(len, qrels.values())) == 5  # every query judging a joined passage now judges the passage holding it
