"""How alike two entity names are: pure scoring of a pair, and precision/recall of a merge threshold.

Every signal is kept and shown:

* `name_match` — graphiti's exact key (`_normalize_string_exact`: lowercase, collapsed whitespace) equal:
  1.0; else the *core* names equal — graphiti's fuzzy form (`_normalize_name_for_fuzzy`: alphanumerics
  only) without spaces and without trailing legal forms (Inc, LLC, Ltd, Corp, Co, ...): 0.9; else 0.
* `shingle` — Jaccard similarity of graphiti's 3-character shingles of the fuzzy form
  (`_cached_shingles`, `_jaccard_similarity`: the sets graphiti's MinHash approximates).
* `cosine` — cosine of the stored `name_embedding` vectors (negative counts as 0; None when missing).

`score = max(name_match, 0.4 * shingle + 0.6 * cosine)`, in [0, 1]. A name match decides alone (it is
graphiti's own deterministic rule); otherwise spelling and meaning must agree. Meaning weighs more
(abbreviations, reordered words), but cosine alone would merge neighbours in meaning such as "Revenue" and
"Net Revenue" (cosine 0.84 here): with their shingle Jaccard of 5/8 the score is 0.25 + 0.6 * cosine,
under the default threshold 0.85 for any cosine below 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pipeline.graph import graphiti_compat as graphiti

DEFAULT_THRESHOLD = 0.85
CORE_NAME_MATCH = 0.9
W_SHINGLE, W_COSINE = 0.4, 0.6
LEGAL_FORMS = frozenset(
    {"inc", "incorporated", "llc", "ltd", "limited", "corp", "corporation", "co", "company", "plc", "gmbh", "lp"}
)
THRESHOLDS = tuple(round(i / 100, 2) for i in range(0, 101))


@dataclass(frozen=True)
class PairSignals:
    name_match: float
    shingle: float
    cosine: float | None
    score: float


NAME_CACHE = 100_000  # names, not pairs: each name's forms computed once (a deal's candidates score ~10 pairs a name)


@lru_cache(maxsize=NAME_CACHE)
def core_name(name: str) -> str:
    """Graphiti's fuzzy form, without trailing legal forms and spaces: 'ACME Logistics, LLC' -> 'acmelogistics'."""
    tokens = graphiti.normalize_fuzzy(name).replace("'", "").split()
    while len(tokens) > 1 and tokens[-1] in LEGAL_FORMS:
        tokens.pop()
    return "".join(tokens)


@lru_cache(maxsize=NAME_CACHE)
def _exact(name: str) -> str:
    return graphiti.normalize_exact(name)


@lru_cache(maxsize=NAME_CACHE)
def name_shingles(name: str) -> frozenset[str]:
    """Graphiti's 3-character shingles of the name's fuzzy form."""
    return frozenset(graphiti.shingles(graphiti.normalize_fuzzy(name)))


def name_match(a: str, b: str) -> float:
    if _exact(a) == _exact(b):
        return 1.0
    core = core_name(a)
    return CORE_NAME_MATCH if core and core == core_name(b) else 0.0


def shingle_similarity(a: str, b: str) -> float:
    return graphiti.jaccard(set(name_shingles(a)), set(name_shingles(b)))


def cosine(u: Sequence[float] | None, v: Sequence[float] | None) -> float | None:
    if u is None or v is None or len(u) == 0 or len(u) != len(v):
        return None
    a, b = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b / norm) if norm else None


def combine(name: float, shingle: float, cos: float | None) -> float:
    blended = W_SHINGLE * shingle + W_COSINE * max(cos or 0.0, 0.0)
    return round(min(1.0, max(name, blended)), 4)


def signals(name: float, shingle: float, cos: float | None) -> PairSignals:
    """The signals as shown (rounded), with their combined score (from the unrounded ones)."""
    return PairSignals(name, round(shingle, 4), None if cos is None else round(cos, 4), combine(name, shingle, cos))


def score_pair(a: str, b: str, va: Sequence[float] | None = None, vb: Sequence[float] | None = None) -> PairSignals:
    return signals(name_match(a, b), shingle_similarity(a, b), cosine(va, vb))


@dataclass(frozen=True)
class PRPoint:
    threshold: float
    true_positives: int
    false_positives: int
    false_negatives: int
    precision: float | None  # None when nothing would be merged
    recall: float | None  # None when there are no true duplicates


def precision_recall(scored: Iterable[tuple[float, bool]], thresholds: Iterable[float] = THRESHOLDS) -> list[PRPoint]:
    """Precision and recall of 'merge when score >= threshold' against labels (same entity or not)."""
    pairs = list(scored)
    positives = sum(1 for _, same in pairs if same)
    points = []
    for t in thresholds:
        tp = sum(1 for s, same in pairs if same and s >= t)
        fp = sum(1 for s, same in pairs if not same and s >= t)
        points.append(
            PRPoint(
                threshold=t,
                true_positives=tp,
                false_positives=fp,
                false_negatives=positives - tp,
                precision=tp / (tp + fp) if tp + fp else None,
                recall=tp / positives if positives else None,
            )
        )
    return points
