-- The standings read model, written by the projection runner (services/workers/projections.py) in the
-- transaction that moves its checkpoint; and an index for the reconciler's question "which championships
-- are not finished?", answered from the log itself.

CREATE TABLE standings_rm (
    championship_id text PRIMARY KEY,
    version         integer NOT NULL,     -- the championship stream's version folded so far
    state           jsonb   NOT NULL,     -- the fold of projections/standings.py, to go on from
    standings       jsonb   NOT NULL      -- its table: every team, best first
);

CREATE INDEX events_championship_lifecycle_idx ON events (event_type, stream_id)
    WHERE event_type IN ('championship_created', 'championship_finished');
