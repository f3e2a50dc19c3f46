-- Experiment names are unique per deal, not across deals (a restricted deployment must neither collide
-- with nor learn the names used on another deal). SQLite cannot drop a UNIQUE constraint, so the table is
-- rebuilt; its two child tables are rebuilt with it (dropping a parent that still has children would run
-- their ON DELETE CASCADE), then the copies take the old names (their REFERENCES follow the rename).
CREATE TABLE experiments_v10 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    group_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    judgments TEXT NOT NULL,
    queries INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    spec TEXT NOT NULL,
    payload TEXT NOT NULL,
    UNIQUE (group_id, name)
);
CREATE TABLE experiment_settings_v10 (
    experiment_id INTEGER NOT NULL REFERENCES experiments_v10 (id) ON DELETE CASCADE,
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
CREATE TABLE experiment_queries_v10 (
    experiment_id INTEGER NOT NULL REFERENCES experiments_v10 (id) ON DELETE CASCADE,
    setting TEXT NOT NULL,
    query_id TEXT NOT NULL,
    metrics TEXT NOT NULL,
    latency_ms REAL NOT NULL,
    ranking TEXT NOT NULL,
    PRIMARY KEY (experiment_id, setting, query_id)
) WITHOUT ROWID;
INSERT INTO experiments_v10 SELECT id, name, group_id, created_at, judgments, queries, duration_s, spec, payload
FROM experiments;
INSERT INTO experiment_settings_v10 SELECT * FROM experiment_settings;
INSERT INTO experiment_queries_v10 SELECT * FROM experiment_queries;
DROP TABLE experiment_queries;
DROP TABLE experiment_settings;
DROP TABLE experiments;
ALTER TABLE experiments_v10 RENAME TO experiments;
ALTER TABLE experiment_settings_v10 RENAME TO experiment_settings;
ALTER TABLE experiment_queries_v10 RENAME TO experiment_queries;
CREATE INDEX experiments_group ON experiments (group_id, id);
-- Failed admin unlocks, per data directory (one row, shared by every session and process): how many in a
-- row, and until when the next try is refused. A success clears it.
CREATE TABLE admin_unlock_throttle (
    scope TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    last_failure_at TEXT NOT NULL,
    locked_until_epoch REAL NOT NULL
)
