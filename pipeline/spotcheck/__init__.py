"""Citation spot-check: review queues of (query, fact, citation) items and analysts' verdicts.

- `sampling`: candidate items, disagreement signals, seeded reproducible sampling (pure).
- `highlight`: the supporting span of a fact in its source episode, escaped HTML (pure).
- `queue`: sources (labelled query set, past runs, fact sample), building and storing queues.
- `verdicts`: recording, summaries, CSV export, verdicts as relevance judgments.
- `records`: queues, items and verdicts, and their rows; `repo`: all the SQL (reading queues, items,
  progress, where to resume); `labels`: the dashboard's queue label.
"""

from pipeline.spotcheck.verdicts import GRADES, verdict_judgments

__all__ = ["GRADES", "verdict_judgments"]
