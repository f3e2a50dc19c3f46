"""The pages' caches for `rank()` (its hooks, pipeline/retrieval/hooks.py), kept in the session: a query's pools
and reranker scores, so a rerun, another k or the other side's reranker on the same pool searches and reranks
nothing. The sweep plugs its store-backed caches into the same hooks."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.common.page_state.memo import Held, SessionMemo
from pipeline.api.models import CandidatePool, RankHooks, ScoreCall, ScoreRow, Setting

POOLS_KEPT = 20  # per page: a query's pools at a few N for each side


class SessionPools:
    """Pools of one deal under the pages' filter (current facts)."""

    def __init__(self, memo: Held, group_id: str) -> None:
        self.memo, self.group_id = memo, group_id

    def get(self, setting: Setting, query: str) -> CandidatePool | None:
        return self.memo.peek(("pool", self.group_id, query, setting.pool))

    def put(self, setting: Setting, query: str, pool: CandidatePool) -> None:
        self.memo.put(("pool", self.group_id, query, setting.pool), pool)


class SessionScores:
    """A pool's scores as one call gave them: served whole for the same facts and texts, else asked again; a failure
    is kept like scores."""

    def __init__(self, memo: Held) -> None:
        self.memo = memo

    def lookup(
        self, reranker: str, model: str, query: str, uuids: Sequence[str], facts: Sequence[str]
    ) -> dict[str, ScoreRow]:
        found = self.memo.peek(("scores", reranker, model, query, tuple(uuids), tuple(facts)))
        return dict(found) if found is not None else {}

    def put(self, call: ScoreCall) -> None:
        key = ("scores", call.reranker, call.model, call.query, tuple(call.uuids), tuple(call.facts))
        self.memo.put(key, call.rows())

    def failure(self, reranker: str, model: str, query: str, uuids: Sequence[str]) -> tuple[str, float] | None:
        return self.memo.peek(("failed", reranker, model, query, tuple(uuids)))

    def put_failure(self, reranker: str, model: str, query: str, uuids: Sequence[str], why: str, ms: float) -> None:
        # the failed run stays as shown: the failing service is not called again on every rerun
        self.memo.put(("failed", reranker, model, query, tuple(uuids)), (why, ms))


def session_hooks(ns: str, group_id: str) -> RankHooks:
    """The hooks a page ranks with: its session's pools and scores (held now: `rank()` runs on the event loop's
    thread, where `st.session_state` is not this session's); the dashboard process holds each deal's facts in
    memory from its first query on."""
    memo = SessionMemo(f"{ns}.ranked", keep=POOLS_KEPT * 4).held()
    return RankHooks(pools=SessionPools(memo, group_id), scores=SessionScores(memo), hold=True)
