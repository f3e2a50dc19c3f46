"""Citation spot-check: review queues of (query, fact, citation) items and analysts' answers to two questions.

- `sampling`: candidate items, disagreement signals, seeded reproducible sampling (pure).
- `highlight`: the supporting span of a fact in its source episode, escaped HTML (pure); `sentences`: its
  sentence boundaries (pySBD).
- `queue`: sources (labelled query set, past runs, fact sample), building and storing queues.
- `verdicts`: recording relevance grades and support verdicts, adjudication, summaries, CSV export,
  relevance grades as judgments.
- `agreement`: Cohen's kappa / Krippendorff's alpha per question; `rates`: rates with Wilson intervals.
- `records`: queues, items and answers, and their rows; the SQL: `repo` (queues and their items, and the access
  check on each), `repo_answers` (answers, adjudications, progress, where to resume); `labels`: the dashboard's
  queue label.
"""

from pipeline.spotcheck.verdicts import RELEVANCE, verdict_judgments

__all__ = ["RELEVANCE", "verdict_judgments"]
