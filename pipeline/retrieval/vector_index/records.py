"""What a recall check of the vector index found, and the names of the first-stage options."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

FirstStageName = Literal["exact", "vector_index"]
FIRST_STAGES: tuple[FirstStageName, ...] = ("exact", "vector_index")


@dataclass(frozen=True)
class RecallCheck:
    group_id: str
    created_at: str
    facts: int  # the deal's size when measured
    queries: int
    candidates: int  # N
    pool_recall: float  # mean share of exact search's N candidates the index's first stage also returns
    cosine_recall: float  # the same for the cosine method's own list (2 x N deep)
    exact_ms_p50: float  # the cosine method's time, exact
    index_ms_p50: float  # and through the index

    def summary(self) -> str:
        """One line for wherever the option is offered."""
        return (
            f"recall@{self.candidates} {self.pool_recall:.2f} against exact search "
            f"({self.queries} queries, {self.facts:,} facts, {self.created_at[:10]}); "
            f"cosine {self.index_ms_p50:.0f} ms vs {self.exact_ms_p50:.0f} ms exact"
        )

    def to_dict(self) -> dict[str, Any]:
        """The check as `vector-index --json` prints it. N keeps its first key there, `num_candidates`: scripts
        read that output, and the name is only changed inside the code."""
        data = asdict(self)
        return {("num_candidates" if k == "candidates" else k): v for k, v in data.items()}
