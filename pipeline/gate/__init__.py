"""The retrieval-quality regression gate (`python -m pipeline gate`): a candidate setting against an accepted baseline
on the same queries, for a team's CI. Three checks, in this order (`evaluate`):

1. quality: the 95% bootstrap interval of the mean per-query difference, candidate - baseline, on one metric
   (`significance.paired_interval`). A regression is a drop whose whole interval lies below -max_drop: a drop both
   real (not the noise of a small query set) and larger than the team allows. A drop inside the noise, or one
   smaller than allowed, holds.
2. coverage (`coverage.py`): on pooled judgments, a candidate whose mean judged@k falls more than `COVERAGE_GAP`
   below the baseline's is scored on facts nobody judged (counted not relevant), so its number cannot be trusted
   either way: the check fails and names the (query, fact) pairs to judge and the `pool build` command. On sparse
   judgments (only relevant facts listed) judged@k measures relevance, not coverage: the check passes and says so.
3. latency, with a budget only: the candidate's p95 ms at most the budget.

- `records.py`: each side's per-query numbers (`Side`), limits, checks, the verdict, the queries (`Selection`);
- `checks.py`: the decisions, pure functions of those numbers;
- `ranking.py`: the I/O: `rank_sides` ranks settings with the one sweep engine (`run_sweep`, nothing saved),
  `experiment_baseline` reads an experiment's recommended setting with its stored per-query values;
- `files.py`: a setting file and a baseline file (`--save-baseline`: a `Side` with the queries and judgments it
  was measured on), and the JUnit report (`junit_xml`).
"""
