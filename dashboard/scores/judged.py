"""The judged grades of the Scores page's query (labelled set or relevance verdicts), kept per session."""

from __future__ import annotations

from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.runtime import run as wait
from pipeline.comparison.judged import query_judgments
from pipeline.lab import Lab
from pipeline.retrieval.records import RetrievalRun

JUDGED = SessionMemo("scores.judged", keep=40)


def query_grades(lab: Lab, run: RetrievalRun) -> dict[str, int] | None:
    """fact uuid -> grade, or None when the query is not judged; looked up once per query in the session."""

    def read() -> dict[str, int] | None:
        judged = wait(query_judgments(lab, run.group_id, run.query))
        return judged.grades if judged is not None and judged.scorable else None

    return JUDGED.get((run.group_id, run.query), read)
