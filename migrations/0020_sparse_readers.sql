-- The read models that follow few of the log's events, in the log's read order: the championships' streams
-- (the standings, the ratings), and the tables' openings with the ends of games rated by the table (the
-- table ratings). With no index of their own, each of their batches walked the log's order index from its
-- checkpoint to find them: a rebuild of the standings at 655,000 events read 655,000 rows for each batch of
-- 500 (245 ms; 4 ms on this index), and the 10,240-team rehearsal's read-model check spent 26 s so. Their
-- reads also write the names into the statement (services/eventstore/store.py, _read_streams_sql): a
-- prepared statement's generic plan, made without the parameters' values, could not use these indexes.
-- Each holds a few events in a thousand.
CREATE INDEX events_championships_order_idx ON events (tx_id, position)
    WHERE starts_with(stream_id, 'championship-');
CREATE INDEX events_table_ratings_order_idx ON events (tx_id, position)
    WHERE event_type IN ('table_opened', 'balut_ended');
