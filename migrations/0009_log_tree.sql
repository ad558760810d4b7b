-- The stored subtrees of the log's Merkle tree (services/anchor/tree.py), so that a consistency or an
-- inclusion proof reads O(log n) rows instead of the whole log.
--
-- A row is the hash of a complete, aligned subtree: the 2^level events from index * 2^level on, in read
-- order (tx_id, position).  Only levels 8 and up are kept (subtrees of 256 events and more: about one row
-- per 128 events); a proof hashes the few events below that level itself, from at most two runs of 256.
-- A level-8 row also names its last event, which is where the next run of 256 starts.
--
-- The checkpoint publisher writes the rows a checkpoint completes in that checkpoint's transaction, so they
-- cover every complete subtree below the latest checkpoint's size; on a database made before this
-- migration it first computes them once from the events (the backfill).  Like the checkpoints, they are
-- only ever added to, and a changed row shows as a proof that no longer verifies and in `baloot verify`.
CREATE TABLE log_tree (
    level           smallint    NOT NULL CHECK (level BETWEEN 8 AND 62),
    index           bigint      NOT NULL CHECK (index >= 0),
    hash            bytea       NOT NULL CHECK (length(hash) = 32),
    last_tx_id      xid8,
    last_position   bigint,
    PRIMARY KEY (level, index),
    CONSTRAINT log_tree_last_event CHECK ((level = 8) = (last_tx_id IS NOT NULL AND last_position IS NOT NULL))
);

-- The run of 256 that holds an event (an inclusion proof asked for by stream and version).
CREATE INDEX log_tree_last_event_idx ON log_tree (last_tx_id, last_position) WHERE level = 8;

CREATE TRIGGER log_tree_append_only BEFORE UPDATE OR DELETE ON log_tree
    FOR EACH ROW EXECUTE FUNCTION anchor_refuse_change();
CREATE TRIGGER log_tree_no_truncate BEFORE TRUNCATE ON log_tree
    FOR EACH STATEMENT EXECUTE FUNCTION anchor_refuse_change();
