-- The referee's desk: a ruling's append is signed like a deal's end (receipts of kind 'ruling'), and the
-- desk's queue reads the calls, claims and rulings of every table from the log through this partial index.

ALTER TABLE receipts DROP CONSTRAINT receipts_kind_check;
ALTER TABLE receipts ADD CONSTRAINT receipts_kind_check CHECK (kind IN ('deal', 'game', 'ruling'));

CREATE INDEX events_referee_calls_idx ON events (position)
    WHERE event_type IN ('referee_called', 'referee_call_claimed', 'ruling_made');
