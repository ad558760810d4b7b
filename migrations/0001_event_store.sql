-- The event log: append-only, one hash chain per stream, read in (tx_id, position) order.

CREATE TABLE events (
    -- Unique and increasing in insertion order, but NOT in commit order: a transaction may take a
    -- position and commit after a later one.  Readers therefore order by (tx_id, position) and stop at
    -- the oldest transaction still running (see read_all in services/eventstore/store.py).
    position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx_id           xid8        NOT NULL DEFAULT pg_current_xact_id(),
    stream_id       text        NOT NULL,
    version         integer     NOT NULL CHECK (version > 0),
    event_id        uuid        NOT NULL,
    event_type      text        NOT NULL,
    schema_version  integer     NOT NULL DEFAULT 1,
    data            jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}',
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    prev_hash       bytea       NOT NULL,
    hash            bytea       NOT NULL,
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, version),
    CONSTRAINT events_event_id_key UNIQUE (event_id)
);

CREATE INDEX events_tx_position_idx ON events (tx_id, position);

-- The log is never changed: refuse UPDATE, DELETE and TRUNCATE in the database itself, whoever asks.
CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % on events is refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

-- Link i of a stream's chain: sha256(prev_hash || canonical bytes).  The canonical bytes are the
-- text of a jsonb array, which PostgreSQL prints the same way whatever the input spelling was.
CREATE FUNCTION event_hash(
    p_prev_hash bytea, p_stream text, p_version integer, p_type text, p_schema_version integer,
    p_data jsonb
) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sha256(p_prev_hash || convert_to(
        jsonb_build_array(p_stream, p_version, p_type, p_schema_version, p_data)::text, 'UTF8'))
$$;

-- One round trip per append: check the expected version, accept an exact retry, chain and insert.
-- p_expected NULL means "any version".  Returns the stream's version after the append.
-- p_notify false leaves the NOTIFY to the caller, after commit: a NOTIFY inside the transaction takes a
-- database-wide lock held until commit (WAL flush included), which serialises every notifying commit.
-- Errors: SQLSTATE BA001 (stale expected version; DETAIL is the actual version),
--         BA002 (event ids already stored elsewhere: not an exact retry).
CREATE FUNCTION append_events(
    p_stream text, p_expected integer, p_ids uuid[], p_types text[], p_schema_versions integer[],
    p_data jsonb[], p_metadata jsonb[], p_notify boolean DEFAULT true
) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    n           integer := coalesce(array_length(p_ids, 1), 0);
    v_current   integer;
    v_hash      bytea;
    v_last_tx   xid8;
    v_tx        xid8;
    v_first     integer;
    v_stored    integer;
    v_prev      bytea[];
    v_hashes    bytea[];
BEGIN
    SELECT version, hash, tx_id INTO v_current, v_hash, v_last_tx
      FROM events WHERE stream_id = p_stream ORDER BY version DESC LIMIT 1;
    v_current := coalesce(v_current, 0);
    IF n = 0 THEN
        RETURN v_current;
    END IF;

    -- An exact retry: every id already stored, in this stream, in this order, contiguously.
    SELECT min(version), count(*) INTO v_first, v_stored
      FROM events WHERE event_id = p_ids[1] AND stream_id = p_stream;
    IF v_stored > 0 THEN
        SELECT count(*) INTO v_stored
          FROM unnest(p_ids) WITH ORDINALITY AS i(id, k)
          JOIN events e ON e.event_id = i.id
         WHERE e.stream_id = p_stream AND e.version = v_first + i.k - 1;
        IF v_stored = n AND (p_expected IS NULL OR p_expected = v_first - 1) THEN
            RETURN v_current;
        END IF;
        RAISE EXCEPTION 'events % are already stored in stream % but this append is not an exact retry',
            p_ids, p_stream USING ERRCODE = 'BA002';
    END IF;

    IF p_expected IS NOT NULL AND p_expected <> v_current THEN
        RAISE EXCEPTION 'stream % is at version %, not the expected %', p_stream, v_current, p_expected
            USING ERRCODE = 'BA001', DETAIL = v_current::text;
    END IF;

    -- Keep each stream's order consistent with the (tx_id, position) read order: a transaction whose
    -- id is older than the one that wrote the stream's head must retry in a fresh transaction.
    v_tx := pg_current_xact_id();
    IF v_last_tx > v_tx THEN
        RAISE EXCEPTION 'stream % was advanced by a younger transaction; retry in a new transaction',
            p_stream USING ERRCODE = 'BA001', DETAIL = v_current::text;
    END IF;

    v_hash := coalesce(v_hash, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);
    v_prev := array_fill(NULL::bytea, ARRAY[n]);
    v_hashes := v_prev;
    FOR k IN 1..n LOOP
        v_prev[k] := v_hash;
        -- event_hash() written out: calling the SQL function from here costs more than the hash itself.
        v_hash := sha256(v_hash || convert_to(jsonb_build_array(
            p_stream, v_current + k, p_types[k], p_schema_versions[k], p_data[k])::text, 'UTF8'));
        v_hashes[k] := v_hash;
    END LOOP;

    INSERT INTO events (tx_id, stream_id, version, event_id, event_type, schema_version, data, metadata,
                        prev_hash, hash)
    SELECT v_tx, p_stream, v_current + k, id, t, sv, d, coalesce(m, '{}'), ph, h
      FROM unnest(p_ids, p_types, p_schema_versions, p_data, p_metadata, v_prev, v_hashes)
           WITH ORDINALITY AS x(id, t, sv, d, m, ph, h, k);

    IF p_notify THEN
        PERFORM pg_notify('baloot_events', p_stream);
    END IF;
    RETURN v_current + n;
END
$$;

-- The first version of a stream whose link is broken (a changed, removed or inserted event), or NULL.
CREATE FUNCTION verify_stream(p_stream text) RETURNS integer LANGUAGE sql STABLE AS $$
    SELECT min(version) FROM (
        SELECT version, prev_hash, hash, stream_id, event_type, schema_version, data,
               lag(hash, 1, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)
                   OVER w AS expected_prev,
               row_number() OVER w AS expected_version
          FROM events WHERE stream_id = p_stream
        WINDOW w AS (ORDER BY version)
    ) link
     WHERE version <> expected_version
        OR prev_hash <> expected_prev
        OR hash <> event_hash(prev_hash, stream_id, version, event_type, schema_version, data)
$$;

-- Projections: checkpoint and health, written in the same transaction as the read model.
CREATE TABLE projections (
    name            text PRIMARY KEY,
    tx_id           xid8        NOT NULL DEFAULT '0',
    position        bigint      NOT NULL DEFAULT 0,
    status          text        NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'failed')),
    error           text,
    failed_position bigint,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
