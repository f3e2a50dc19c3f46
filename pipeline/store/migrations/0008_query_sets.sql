-- Labelled query sets, per deal: a deal may hold several (its own demo / BEIR set, imported sets, analysts'
-- verdicts frozen into a set), each named uniquely on the deal. Judgments name facts by uuid. A set is
-- written whole in one transaction; replacing it deletes the old rows (cascade) in the same transaction.
-- query_set_file_imports records which file-based sets (`<data dir>/query_sets/<deal>/`, the layout before
-- this migration) were copied into the store, so each is copied once.
CREATE TABLE query_sets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('demo', 'beir', 'import', 'verdicts')),
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    UNIQUE (group_id, name)
);
CREATE TABLE query_set_queries (
    set_id INTEGER NOT NULL REFERENCES query_sets (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    type TEXT NOT NULL,
    split TEXT NOT NULL,
    PRIMARY KEY (set_id, query_id)
) WITHOUT ROWID;
CREATE TABLE query_set_judgments (
    set_id INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    fact_uuid TEXT NOT NULL,
    grade INTEGER NOT NULL,
    PRIMARY KEY (set_id, query_id, fact_uuid),
    FOREIGN KEY (set_id, query_id) REFERENCES query_set_queries (set_id, query_id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE TABLE query_set_file_imports (
    group_id TEXT PRIMARY KEY,
    folder TEXT NOT NULL,
    set_name TEXT,
    imported_at TEXT NOT NULL
) WITHOUT ROWID
