-- The read models that follow a few kinds of events across the whole log (the table ratings: tables' openings
-- and the ends of games rated by table; the webhooks' outbox: the championships' steps, tables' openings and
-- referees' calls and rulings), in the log's read order. With no index of their own, each of their batches
-- walked the log's order index from its checkpoint and read every event's row to look at its kind: in the
-- 10,240-team rehearsal the table ratings' rebuild took 20 of the read-model check's 23 s, and while the
-- workers play both runners read every event stored. Their reads write the kinds into the statement
-- (services/eventstore/store.py, _read_streams_sql) when they are all among these, and only then: the
-- fair-play reader's kinds (every deal's start and seed, one event in sixteen) are not sparse, and written in,
-- the planner scanned all of them for each of its batches.
CREATE INDEX events_sparse_kinds_order_idx ON events (tx_id, position)
    WHERE event_type IN ('championship_created', 'team_registered', 'registration_closed', 'draw_committed',
                         'draw_made', 'round_paired', 'match_result_recorded', 'match_forfeited',
                         'match_double_forfeited', 'championship_finished', 'table_opened', 'referee_called',
                         'ruling_made', 'game_ended', 'balut_ended');
