-- A run records its first-stage recipe; every run recorded before recipes ran the hybrid walk.
ALTER TABLE runs ADD COLUMN recipe TEXT NOT NULL DEFAULT 'hybrid-walk';
