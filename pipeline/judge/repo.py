"""The judge's SQL: its cache of grades, one row per (model, prompt version, query text, fact text).

A row is keyed by the sha256 of the pair's texts and keeps the texts too; a lookup compares them as well, so
only the very same pair is ever answered from the cache. Only grades that passed the rubric check are written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.store.db import Store, utc_now

LOOKUP_CHUNK = 400  # pairs per SELECT: far below SQLite's limit on bound parameters


@dataclass(frozen=True)
class CachedGrade:
    grade: int
    reason: str
    input_tokens: int  # what grading the pair cost when it was graded
    output_tokens: int
    created_at: str


def pair_sha256(query: str, fact: str) -> str:
    """The cache key of a pair: the sha256 of the JSON array [query, fact] (no two pairs share the text)."""
    return hashlib.sha256(json.dumps([query, fact], ensure_ascii=False).encode("utf-8")).hexdigest()


def cached_grades(
    store: Store, model: str, prompt_version: str, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], CachedGrade]:
    """(query, fact) -> its cached grade, for the pairs the cache holds for this model and prompt version."""
    by_key = {pair_sha256(query, fact): (query, fact) for query, fact in pairs}
    keys = list(by_key)
    found: dict[tuple[str, str], CachedGrade] = {}
    for start in range(0, len(keys), LOOKUP_CHUNK):
        chunk = keys[start : start + LOOKUP_CHUNK]
        rows = store.query(
            f"""
            SELECT pair_sha256, query, fact, grade, reason, input_tokens, output_tokens, created_at
            FROM judge_cache
            WHERE model = ? AND prompt_version = ? AND pair_sha256 IN ({", ".join("?" * len(chunk))})
            """,
            (model, prompt_version, *chunk),
        )
        for row in rows:
            pair = by_key[row["pair_sha256"]]
            if (row["query"], row["fact"]) == pair:
                found[pair] = CachedGrade(
                    row["grade"], row["reason"], row["input_tokens"], row["output_tokens"], row["created_at"]
                )
    return found


def save_grade(
    store: Store,
    model: str,
    prompt_version: str,
    query: str,
    fact: str,
    grade: int,
    reason: str,
    input_tokens: int,
    output_tokens: int,
) -> None:
    """Write (or replace) one pair's grade: one transaction, so a run cut short keeps every grade it got."""
    with store.transaction() as conn:
        conn.execute(
            """
            INSERT INTO judge_cache (model, prompt_version, pair_sha256, query, fact, grade, reason, input_tokens,
                                     output_tokens, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (model, prompt_version, pair_sha256) DO UPDATE SET
                query = excluded.query, fact = excluded.fact, grade = excluded.grade, reason = excluded.reason,
                input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
                created_at = excluded.created_at
            """,
            (
                model,
                prompt_version,
                pair_sha256(query, fact),
                query,
                fact,
                grade,
                reason,
                input_tokens,
                output_tokens,
                utc_now(),
            ),
        )
