-- A query set's counts kept on its row: sets are written whole and never changed in place, so the counts are
-- written with them (`query_sets.repo._insert`) and listing a deal's sets reads one row per set instead of
-- counting, or loading, a set of a million logged queries on every Evaluate run (issue 38). scorable_count:
-- the queries with a judgment of grade >= 1, the only ones a sweep can score.
ALTER TABLE query_sets ADD COLUMN query_count INTEGER;
ALTER TABLE query_sets ADD COLUMN judgment_count INTEGER;
ALTER TABLE query_sets ADD COLUMN scorable_count INTEGER;
UPDATE query_sets SET
    query_count = (SELECT COUNT(*) FROM query_set_queries q WHERE q.set_id = query_sets.id),
    judgment_count = (SELECT COUNT(*) FROM query_set_judgments j WHERE j.set_id = query_sets.id),
    scorable_count = (
        SELECT COUNT(DISTINCT j.query_id) FROM query_set_judgments j WHERE j.set_id = query_sets.id AND j.grade >= 1
    )
