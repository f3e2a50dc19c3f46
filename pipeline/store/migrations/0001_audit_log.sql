CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    group_id TEXT NOT NULL,
    target TEXT NOT NULL,
    details TEXT NOT NULL
);
CREATE INDEX audit_log_group ON audit_log (group_id, id);
