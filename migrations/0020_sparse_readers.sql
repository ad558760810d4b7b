-- The read models that follow only the championships' streams (the standings, the ratings), a few events in
-- a thousand of a big log, in the log's read order. With no index of their own, each of their batches walked
-- the log's order index from its checkpoint to find them: a rebuild of the standings at 655,000 events read
-- 655,000 rows for each batch of 500 (245 ms; 4 ms on this index), and the 10,240-team rehearsal's
-- read-model check spent 26 s so. Their reads write the prefix into the statement
-- (services/eventstore/store.py, _read_streams_sql): a prepared statement's generic plan, made without the
-- parameters' values, could not use this index.
CREATE INDEX events_championships_order_idx ON events (tx_id, position)
    WHERE starts_with(stream_id, 'championship-');
