-- The write-ahead journal of admin actions (pipeline/journal/): intent and before-state first, each step as it
-- completes, then committed with the feature record (or rolled back / completed by recovery).
CREATE TABLE admin_journal (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    group_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    before TEXT NOT NULL,
    steps TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL DEFAULT 'open',
    created_at TEXT NOT NULL,
    finished_at TEXT,
    outcome TEXT
);
CREATE INDEX admin_journal_open ON admin_journal (status, created_at);
