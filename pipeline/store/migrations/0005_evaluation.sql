-- Evaluation: saved sweeps ("experiments") with per-setting aggregates and per-query rows,
-- and the caches that make a repeated sweep cheap: first-stage candidates (keyed by a fingerprint of
-- the deal's graph, so any edit invalidates them) and reranker scores by (model, pool, query, fact).
CREATE TABLE experiments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    group_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    judgments TEXT NOT NULL,
    queries INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    spec TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE INDEX experiments_group ON experiments (group_id, id);
CREATE TABLE experiment_settings (
    experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
    setting TEXT NOT NULL,
    candidates INTEGER NOT NULL,
    top_k INTEGER NOT NULL,
    reranker TEXT NOT NULL,
    reranker_model TEXT NOT NULL,
    in_grid INTEGER NOT NULL,
    metrics TEXT NOT NULL,
    by_type TEXT NOT NULL,
    p50_ms REAL NOT NULL,
    p95_ms REAL NOT NULL,
    tokens INTEGER NOT NULL,
    cost_usd REAL,
    fallbacks INTEGER NOT NULL,
    p_value REAL,
    p_ttest REAL,
    PRIMARY KEY (experiment_id, setting)
) WITHOUT ROWID;
CREATE TABLE experiment_queries (
    experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
    setting TEXT NOT NULL,
    query_id TEXT NOT NULL,
    metrics TEXT NOT NULL,
    latency_ms REAL NOT NULL,
    ranking TEXT NOT NULL,
    PRIMARY KEY (experiment_id, setting, query_id)
) WITHOUT ROWID;
CREATE TABLE eval_first_stage (
    group_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    filter TEXT NOT NULL,
    depth INTEGER NOT NULL,
    query TEXT NOT NULL,
    ms REAL NOT NULL,
    payload BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (group_id, fingerprint, filter, depth, query)
) WITHOUT ROWID;
CREATE TABLE rerank_cache (
    model TEXT NOT NULL,
    pool TEXT NOT NULL,
    query TEXT NOT NULL,
    uuid TEXT NOT NULL,
    fact_sha TEXT NOT NULL,
    score REAL NOT NULL,
    ms REAL NOT NULL,
    tokens REAL NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model, pool, query, uuid)
) WITHOUT ROWID
