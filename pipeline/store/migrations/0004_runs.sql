-- Run history: one row per retrieval run, its stage timings and its top-k results,
-- plus the run's full `RetrievalRun.to_dict()` JSON in a side table so scans of `runs` stay small.
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    at_epoch REAL NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('dashboard', 'cli', 'bench')),
    group_id TEXT NOT NULL,
    query TEXT NOT NULL,
    num_candidates INTEGER NOT NULL,
    top_k INTEGER NOT NULL,
    reranker TEXT NOT NULL,
    reranker_model TEXT NOT NULL,
    include_superseded INTEGER NOT NULL,
    as_of TEXT,
    rerank_used INTEGER NOT NULL,
    fallback_reason TEXT,
    rerank_tokens INTEGER NOT NULL,
    rerank_cost_usd REAL,
    total_ms REAL NOT NULL,
    result_count INTEGER NOT NULL
);
CREATE INDEX runs_at ON runs (at_epoch);
CREATE INDEX runs_group_at ON runs (group_id, at_epoch);
CREATE TABLE run_stages (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    stage TEXT NOT NULL,
    ms REAL NOT NULL,
    PRIMARY KEY (run_id, stage)
) WITHOUT ROWID;
CREATE TABLE run_results (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    uuid TEXT NOT NULL,
    score REAL,
    first_stage_rank INTEGER NOT NULL,
    PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;
CREATE INDEX run_results_uuid ON run_results (uuid);
CREATE TABLE run_payloads (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    payload TEXT NOT NULL
);
