"""Judging pools: judgments built on the team's own graph.

A pool is a spot-check queue (pipeline/spotcheck) of (query, fact) pairs: for each query of a stored query set,
the union of several settings' top k (depth-k pooling, as TREC builds its pools), each pair once, pairs already
judged (by the set or by analysts) left out. Analysts grade it on the Spot-check page (the relevance question
first); an LLM judge grades it with `python -m pipeline judge`; a calibration sample draws the judge's pairs
back for analysts, so the judge is checked against them (`agreement`).

- `records`: pools, their specs and progress; `repo`: all the SQL; `build`: building and drawing pools.
"""
