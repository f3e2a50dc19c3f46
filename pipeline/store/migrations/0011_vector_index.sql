-- The first stage's optional vector index: which method a run's cosine list came from, and each measurement
-- of the index against exact search on a deal (the figure shown wherever the option is offered).
ALTER TABLE runs ADD COLUMN first_stage TEXT NOT NULL DEFAULT 'exact' CHECK (first_stage IN ('exact', 'vector_index'));
CREATE TABLE vector_index_checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    facts INTEGER NOT NULL,
    queries INTEGER NOT NULL,
    num_candidates INTEGER NOT NULL,
    pool_recall REAL NOT NULL,
    cosine_recall REAL NOT NULL,
    exact_ms_p50 REAL NOT NULL,
    index_ms_p50 REAL NOT NULL
);
CREATE INDEX vector_index_checks_group ON vector_index_checks (group_id, id);
