-- The anchored log (services/anchor): signed receipts of stream heads and signed Merkle checkpoints
-- over the whole log.  The signing key is never stored here.  These rows are copies: a receipt's or a
-- checkpoint's worth is its signature, and players and auditors keep their own (see `baloot verify`).

-- The append also reports the stream's head hash, which a receipt signs, so signing needs no extra query.
-- A new function rather than a changed append_events_reporting: its OUT columns cannot change in place.
CREATE FUNCTION append_events_head(
    p_stream text, p_expected integer, p_ids uuid[], p_types text[], p_schema_versions integer[],
    p_data jsonb[], p_metadata jsonb[], p_notify boolean DEFAULT true,
    OUT version integer, OUT stored boolean, OUT hash bytea
) LANGUAGE plpgsql AS $$
BEGIN
    SELECT r.version, r.stored INTO version, stored
      FROM append_events_reporting(p_stream, p_expected, p_ids, p_types, p_schema_versions, p_data,
                                   p_metadata, p_notify) r;
    hash := (SELECT e.hash FROM events e WHERE e.stream_id = p_stream AND e.version = append_events_head.version);
END
$$;

-- Like the log itself, the anchors are only ever added to.
CREATE FUNCTION anchor_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'signed anchors are append-only: % on % is refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

-- A receipt: the server's signature over a stream's head (version and chain hash) at a deal's or a
-- game's end, handed to the players and put into the hand record.
CREATE TABLE receipts (
    stream_id   text        NOT NULL,
    version     integer     NOT NULL CHECK (version > 0),
    kind        text        NOT NULL CHECK (kind IN ('deal', 'game')),
    ref         text        NOT NULL,
    hash        bytea       NOT NULL,
    key_id      text        NOT NULL,
    signature   bytea       NOT NULL,
    signed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version, kind)
);

-- A checkpoint: the signed root of the Merkle tree over the first tree_size events in read order
-- (tx_id, position), with the frontier (roots of its perfect subtrees) the next one extends.
CREATE TABLE checkpoints (
    seq             bigint      PRIMARY KEY,
    tree_size       bigint      NOT NULL CHECK (tree_size > 0),
    root            bytea       NOT NULL,
    last_tx_id      xid8        NOT NULL,
    last_position   bigint      NOT NULL,
    frontier        bytea[]     NOT NULL,
    created_at      timestamptz NOT NULL,
    key_id          text        NOT NULL,
    signature       bytea       NOT NULL,
    CONSTRAINT checkpoints_tree_size_key UNIQUE (tree_size)
);

CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts
    FOR EACH ROW EXECUTE FUNCTION anchor_refuse_change();
CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts
    FOR EACH STATEMENT EXECUTE FUNCTION anchor_refuse_change();
CREATE TRIGGER checkpoints_append_only BEFORE UPDATE OR DELETE ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION anchor_refuse_change();
CREATE TRIGGER checkpoints_no_truncate BEFORE TRUNCATE ON checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION anchor_refuse_change();
