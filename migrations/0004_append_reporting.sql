-- An exact retry racing the append it repeats returned the head read before that append committed
-- (0001); it now reads the head again. And append_events_reporting tells an exact retry (nothing
-- stored) from a real append, so that callers run their after-append work once: a command delivered
-- twice must have its follow-ups once. The events were stored by this call exactly when this
-- transaction wrote them.

CREATE OR REPLACE FUNCTION append_events(
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
            -- Read the head again: the retried events may have committed after v_current was read.
            RETURN (SELECT max(e.version) FROM events e WHERE e.stream_id = p_stream);
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

CREATE FUNCTION append_events_reporting(
    p_stream text, p_expected integer, p_ids uuid[], p_types text[], p_schema_versions integer[],
    p_data jsonb[], p_metadata jsonb[], p_notify boolean DEFAULT true,
    OUT version integer, OUT stored boolean
) LANGUAGE plpgsql AS $$
BEGIN
    version := append_events(p_stream, p_expected, p_ids, p_types, p_schema_versions, p_data, p_metadata,
                             p_notify);
    stored := EXISTS (SELECT 1 FROM events WHERE event_id = p_ids[1]
                                            AND tx_id = pg_current_xact_id_if_assigned());
END
$$;
