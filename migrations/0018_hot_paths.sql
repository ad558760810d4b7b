-- A receipt's stored copy without a wait for the disk. A receipt is the server's signature over a stream head
-- that is already committed (synchronously): the copy can always be made again, the same bytes (Ed25519 is
-- deterministic), from the log and the key, so its commit need not wait for the WAL flush that the events'
-- did. A crash may lose the copies of the last fraction of a second (the players were handed theirs with
-- the command's answer), never an event. One call of this function is its own transaction (an autocommitted statement):
-- set_config(..., true) lasts to the end of the transaction, so it must not be called inside another one.
CREATE FUNCTION store_receipt_copy(p_stream text, p_version integer, p_kind text, p_ref text, p_hash bytea,
                                   p_key_id text, p_signature bytea)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO receipts (stream_id, version, kind, ref, hash, key_id, signature)
    VALUES (p_stream, p_version, p_kind, p_ref, p_hash, p_key_id, p_signature)
    ON CONFLICT DO NOTHING;
    RETURN FOUND;
END
$$;

-- The daily deal's board sets still to reveal, looked for at every reconciler pass: by an index of the two
-- kinds of events it reads, not a scan of the whole log.
CREATE INDEX events_board_sets_idx ON events (event_type, stream_id)
    WHERE event_type IN ('board_set_opened', 'board_set_revealed');

-- Which tables' games have ended (each game's end event: Baloot's, Balut's), asked of many tables at once (a
-- championship's full tick collects the results of a round's ended games; the rehearsal's end checks): one
-- entry a game.
CREATE INDEX events_game_ends_idx ON events (stream_id) WHERE event_type IN ('game_ended', 'balut_ended');
