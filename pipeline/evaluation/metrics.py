"""IR metrics by name ("ndcg@10", "recall@5", ...), computed by `ir_measures` (trec_eval via pytrec_eval).

Nothing here re-implements a metric: each name maps to an `ir_measures` measure and the library does
the arithmetic. What this module adds is the glue the sweep needs:

- a ranking is an ordered list of fact uuids; it is handed to trec_eval with strictly decreasing
  scores (len - position), because trec_eval re-sorts by score and breaks ties by document id;
- a labelled query whose ranking is empty is scored 0 on every metric (trec_eval would drop it);
- only queries with at least one relevant judgment (grade >= 1) are evaluated.

Definitions (trec_eval's): nDCG@k uses the graded judgments as gains (grade 2 counts twice grade 1)
with a log2(rank + 1) discount, normalised by the ideal ordering of all judged facts; Recall@k,
Precision@k (divided by k even when fewer than k were returned), MRR@k (reciprocal rank of the first
relevant fact within the top k, else 0) and hit rate@k (1 if any relevant fact is in the top k) count
grade >= 1 as relevant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import ir_measures
from ir_measures import RR, P, R, Success, nDCG
from tokenizers import Tokenizer

from pipeline.errors import InvalidInput
from pipeline.numbers import whole_number

# the context size handed on is counted with the bundled MiniLM WordPiece tokenizer (offline; an LLM's own BPE
# tokenizer counts finance text within some 10-20% of it); a fact is counted up to this many characters
TOKENIZER_FILE = Path(__file__).parents[1] / "embedders" / "assets" / "minilm_tokenizer.json"
TOKEN_CHARS = 16_384
KINDS = ("ndcg", "recall", "mrr", "precision", "hit")
_MEASURES = {"ndcg": nDCG, "recall": R, "mrr": RR, "precision": P, "hit": Success}

Qrels = Mapping[str, Mapping[str, int]]  # query id -> fact uuid -> grade
Rankings = Mapping[str, Sequence[str]]  # query id -> fact uuids, best first


def parse_metric(name: str) -> tuple[str, int]:
    """'ndcg@10' -> ('ndcg', 10); anything else is rejected with the valid forms."""
    kind, _, text = name.strip().lower().partition("@")
    cutoff = whole_number(text, 1)
    if kind not in _MEASURES or cutoff is None:
        raise InvalidInput(f"Unknown metric {name!r}; use one of {', '.join(k + '@K' for k in KINDS)} (e.g. ndcg@10).")
    return kind, cutoff


def measure(name: str) -> ir_measures.Measure:
    kind, cutoff = parse_metric(name)
    return _MEASURES[kind] @ cutoff


def relevant_queries(qrels: Qrels) -> list[str]:
    """Query ids with at least one judgment of grade >= 1 (the others cannot be scored)."""
    return [q for q, judged in qrels.items() if any(grade >= 1 for grade in judged.values())]


def per_query(qrels: Qrels, rankings: Rankings, names: Iterable[str]) -> dict[str, dict[str, float]]:
    """query id -> metric name -> value, for every query of `rankings` that has a relevant judgment."""
    names = list(dict.fromkeys(names))
    by_measure = {measure(n): n for n in names}
    relevant = set(relevant_queries(qrels))
    scored = [q for q in rankings if q in relevant]
    out: dict[str, dict[str, float]] = {q: dict.fromkeys(names, 0.0) for q in scored}
    run = {q: {uuid: float(len(rankings[q]) - i) for i, uuid in enumerate(rankings[q])} for q in scored if rankings[q]}
    judged = {q: {d: int(g) for d, g in qrels[q].items()} for q in scored}
    if run:
        for m in ir_measures.iter_calc(list(by_measure), judged, run):
            out[m.query_id][by_measure[m.measure]] = float(m.value)
    return out


def mean(rows: Iterable[Mapping[str, float]], names: Sequence[str]) -> dict[str, float]:
    """The mean of each metric over the rows (0.0 for no rows)."""
    rows = list(rows)
    return {n: (sum(r[n] for r in rows) / len(rows) if rows else 0.0) for n in names}


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def token_counts(texts: Sequence[str]) -> list[int]:
    """Tokens of each text (no special tokens), as the context an agent is handed would count them."""
    if not texts:
        return []
    encodings = _tokenizer().encode_batch([t[:TOKEN_CHARS] for t in texts], add_special_tokens=False)
    return [len(e.ids) for e in encodings]
