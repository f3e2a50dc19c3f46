"""The registry of journalled actions: each kind's steps (in order) and how recovery finishes an open entry.

A feature registers its kinds where its actions live; recovery imports those modules (`HANDLER_MODULES`), so
an entry left by a killed process always finds its handler. The crash tests enumerate `boundaries(kind)`, so
a new step is covered by them automatically.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pipeline.journal.records import BEGUN, DONE, JournalEntry

if TYPE_CHECKING:
    from pipeline.lab import Lab


@dataclass(frozen=True)
class Finished:
    """What a handler did: ROLLED_BACK or COMPLETED, details for the audit entry, and (for a completed action)
    the SQLite writes to make in the transaction that closes the entry, so they land with it."""

    status: str
    outcome: dict[str, Any]
    write: Callable[[sqlite3.Connection], None] | None = None


# a handler puts the graph back or finishes the action; it must be idempotent: safe whether a step never ran,
# ran partly or fully (recovery may itself be killed and run again).
Finisher = Callable[["Lab", JournalEntry], Awaitable[Finished]]

HANDLER_MODULES = (
    "pipeline.corrections.actions",
    "pipeline.merges.actions",
    "pipeline.ingest.demo.seed",
    "pipeline.retrieval.vector_index.build",
)


@dataclass(frozen=True)
class Kind:
    name: str
    steps: tuple[str, ...]  # the graph (or other) steps between BEGUN and DONE
    finish: Finisher


KINDS: dict[str, Kind] = {}


def register(name: str, steps: tuple[str, ...], finish: Finisher) -> Kind:
    KINDS[name] = Kind(name, steps, finish)
    return KINDS[name]


def load_kinds() -> dict[str, Kind]:
    for module in HANDLER_MODULES:
        importlib.import_module(module)
    return KINDS


def boundaries(name: str) -> tuple[str, ...]:
    """Every step boundary of a kind, where a crash may strike: after BEGUN, after each step, after DONE."""
    return (BEGUN, *load_kinds()[name].steps, DONE)
