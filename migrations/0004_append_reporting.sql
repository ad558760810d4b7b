-- append_events, telling an exact retry (nothing stored) from a real append, so that callers run
-- their after-append work once: a command delivered twice must have its follow-ups once.
CREATE FUNCTION append_events_reporting(
    p_stream text, p_expected integer, p_ids uuid[], p_types text[], p_schema_versions integer[],
    p_data jsonb[], p_metadata jsonb[], p_notify boolean DEFAULT true,
    OUT version integer, OUT stored boolean
) LANGUAGE plpgsql AS $$
BEGIN
    stored := NOT EXISTS (SELECT 1 FROM events WHERE event_id = p_ids[1]);
    version := append_events(p_stream, p_expected, p_ids, p_types, p_schema_versions, p_data, p_metadata,
                             p_notify);
END
$$;
