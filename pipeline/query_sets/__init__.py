"""Labelled query sets, per deal, in the SQLite store: queries (id, text, type, split) and graded judgments
keyed by fact uuid. A deal may hold several (its own demo / BEIR set, imported ones, frozen verdicts); its
default is its own set, else the oldest judged one, else the oldest (a set may hold no judgment yet: an
imported query log, to be judged).

- `records`: the records; `repo`: all the SQL; `sets`: load, list, save (copying older file-based sets in
  first: `legacy_files`).
- `files`: the BEIR layout on disk (`queries.jsonl`, `qrels.tsv`); `formats`: reading it, TREC's and Quepid's
  files, and queries without judgments (`logs`: a query log, a CSV, History); `export`: writing a set in those
  formats; `importer`: a set whose judgments name fact or episode uuids of any graphiti deal; `verdicts`:
  analysts' verdicts frozen into a set.
"""

from pipeline.query_sets.records import LabelledQuery, QuerySet, SaveResult, SetInfo
from pipeline.query_sets.sets import list_query_sets, load_query_set, save_keyed_files, save_query_set

__all__ = [
    "LabelledQuery",
    "QuerySet",
    "SaveResult",
    "SetInfo",
    "list_query_sets",
    "load_query_set",
    "save_keyed_files",
    "save_query_set",
]
