-- A loader's import in progress, on the deal's bookkeeping row: facts written of all and the process writing them
-- (host:pid:start time). Set when a loader claims the deal, cleared when its row is saved complete; left set by a
-- killed import, which `deals`, `status` and the pages then show as interrupted until the same command completes it.
ALTER TABLE deals ADD COLUMN import_done INTEGER;
ALTER TABLE deals ADD COLUMN import_total INTEGER;
ALTER TABLE deals ADD COLUMN import_owner TEXT;
