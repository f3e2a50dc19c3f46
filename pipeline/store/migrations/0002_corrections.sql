CREATE TABLE fact_corrections (
    id TEXT PRIMARY KEY,
    group_id TEXT NOT NULL,
    old_uuid TEXT NOT NULL,
    new_uuid TEXT NOT NULL,
    episode_uuid TEXT NOT NULL,
    mention_uuids TEXT NOT NULL,
    old_fact TEXT NOT NULL,
    new_fact TEXT NOT NULL,
    channel TEXT NOT NULL,
    author TEXT NOT NULL,
    valid_at TEXT NOT NULL,
    prior_props TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at TEXT NOT NULL,
    audit_id INTEGER NOT NULL,
    undone_at TEXT,
    undone_by TEXT,
    undo_audit_id INTEGER
);
CREATE INDEX fact_corrections_group ON fact_corrections (group_id, created_at);
CREATE INDEX fact_corrections_old ON fact_corrections (group_id, old_uuid)
