"""Citation spot-check (issue 9): review queues of (query, fact, citation) items and analysts' verdicts.

- `sampling`: candidate items, disagreement signals, seeded reproducible sampling (pure).
- `highlight`: the supporting span of a fact in its source episode, escaped HTML (pure).
- `queue`: sources (labelled query set, past runs, fact sample), building and storing queues.
- `verdicts`: recording, resuming, summaries, CSV export, verdicts as relevance judgments.
"""

from pipeline.spotcheck.verdicts import GRADES, verdict_judgments

__all__ = ["GRADES", "verdict_judgments"]
