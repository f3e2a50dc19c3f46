"""The bundled demo deal: its files (named here); seeding it, its labelled entity pairs and its example queries
(`seed.py`).

The paths live here, not in `seed.py`, so that what only reads the files needs nothing of the seeder: older data
directories' query-set files are recognised as the demo's by their bytes (`pipeline/query_sets/legacy_files.py`,
a layer below the loaders).
"""

from pathlib import Path

DEMO_DATA_DIR = Path(__file__).parent / "data"
DEAL_FILE = DEMO_DATA_DIR / "deal.json"  # entities, episodes, facts, merges and labelled entity pairs
QUERIES_FILE = DEMO_DATA_DIR / "queries.jsonl"  # its labelled query set, in the BEIR layout
QRELS_FILE = DEMO_DATA_DIR / "qrels.tsv"
