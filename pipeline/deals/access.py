"""The one place a deployment's deal allow-list (`RETRIEVAL_LAB_ALLOWED_DEALS`) is applied.

The Lab hands every page and command a store scoped to the allow-list (`scoped_store`); the features'
repo functions ask that store what it may show (`access_of(store)`), so a page or a command cannot forget
the check: lists leave other deals out (`sql`, `visible`), and opening or writing anything of another deal
is refused in one line, worded like an unknown deal so a restricted deployment does not learn what
exists elsewhere (`require`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import UnknownDeal
from pipeline.store import Store, open_store


@dataclass(frozen=True)
class DealAccess:
    """Which deals may be shown and written: `allowed` None means every deal (an unrestricted deployment)."""

    allowed: frozenset[str] | None = None

    @classmethod
    def of(cls, allowed: Iterable[str] | None) -> DealAccess:
        return cls(None if allowed is None else frozenset(allowed))

    @property
    def restricted(self) -> bool:
        return self.allowed is not None

    def permits(self, group_id: str | None) -> bool:
        return self.allowed is None or group_id in self.allowed

    def require(self, group_id: str, action: str = "") -> None:
        """Raise UnknownDeal (one line) unless this deployment may show and write `group_id`."""
        if not self.permits(group_id):
            doing = f" ({action})" if action else ""
            allowed = ", ".join(sorted(self.allowed or ())) or "none"
            raise UnknownDeal(
                f"No deal named {group_id!r} in this deployment{doing}: RETRIEVAL_LAB_ALLOWED_DEALS allows {allowed}."
            )

    def visible(self, group_ids: Iterable[str]) -> list[str]:
        return [g for g in group_ids if self.permits(g)]

    def sql(self, column: str) -> tuple[str, dict[str, Any]]:
        """A parameterised clause keeping rows whose `column` is an allowed deal ("1 = 1" when unrestricted).
        `column` is a constant of the calling repo, never user text; the deal names are parameters."""
        if self.allowed is None:
            return "1 = 1", {}
        keys = {f"allowed_{i}": g for i, g in enumerate(sorted(self.allowed))}
        if not keys:
            return "0 = 1", {}
        return f"{column} IN ({', '.join(':' + k for k in keys)})", keys


UNRESTRICTED = DealAccess()


class ScopedStore(Store):
    """The data directory's store, seen through an allow-list: the same file and per-thread connections."""

    def __init__(self, base: Store, access: DealAccess) -> None:  # no super().__init__: the base is open already
        self.path = base.path
        self._local = base._local
        self.base = base
        self.access = access

    def __getattr__(self, name: str) -> Any:
        """Anything else a Store holds (set in its __init__, which this view skips) is the base store's."""
        if name == "base":  # not set yet: never recurse
            raise AttributeError(name)
        return getattr(self.base, name)


def access_of(store: Store) -> DealAccess:
    """What `store` may show: its allow-list when it came from `scoped_store`, else every deal."""
    return store.access if isinstance(store, ScopedStore) else UNRESTRICTED


def scoped_store(data_dir: Path, allowed: Iterable[str] | None) -> Store:
    """The store of `data_dir` scoped to `allowed` (None: every deal)."""
    base = open_store(data_dir)
    return base if allowed is None else ScopedStore(base, DealAccess.of(allowed))


__all__ = ["UNRESTRICTED", "DealAccess", "ScopedStore", "access_of", "scoped_store"]
