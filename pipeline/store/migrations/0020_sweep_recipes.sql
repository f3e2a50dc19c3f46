-- Sweeps take first-stage recipes. Every experiment saved before ran the hybrid walk (BM25 + cosine + graph walk, RRF,
-- no cosine floor), so its settings, query rows, baseline and spec say so: a setting's key now begins with its recipe.
ALTER TABLE experiment_settings ADD COLUMN recipe TEXT NOT NULL DEFAULT 'hybrid-walk';
UPDATE experiment_settings SET setting = 'hybrid-walk ' || setting;
UPDATE experiment_queries SET setting = 'hybrid-walk ' || setting;
UPDATE experiments SET
    payload = json_set(payload, '$.baseline', 'hybrid-walk ' || json_extract(payload, '$.baseline')),
    spec = json_set(spec, '$.recipes', json('["hybrid-walk"]'));
UPDATE sweep_jobs SET spec = json_set(spec, '$.recipes', json('["hybrid-walk"]'))
    WHERE json_extract(spec, '$.recipes') IS NULL;

-- cached pools are per recipe too; those cached so far are the hybrid walk's
CREATE TABLE eval_first_stage_new (
    group_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    filter TEXT NOT NULL,
    recipe TEXT NOT NULL,
    depth INTEGER NOT NULL,
    query TEXT NOT NULL,
    ms REAL NOT NULL,
    payload BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (group_id, fingerprint, filter, recipe, depth, query)
) WITHOUT ROWID;
INSERT INTO eval_first_stage_new (group_id, fingerprint, filter, recipe, depth, query, ms, payload, created_at)
    SELECT group_id, fingerprint, filter, 'hybrid-walk', depth, query, ms, payload, created_at FROM eval_first_stage;
DROP TABLE eval_first_stage;
ALTER TABLE eval_first_stage_new RENAME TO eval_first_stage;
