-- The lobby's own indexes (issue 45: items 9 and 17).
--
-- A lobby used to look for a person's championships among the newest 100 of all: anyone creating 100 empty
-- championships pushed a player's real one (its next match, its check-in) out of his lobby. It now reads
-- who belongs to which championship: a registered team's players and substitutes, and each player substituted
-- in, written in the transaction of the championship's append that registers or substitutes them
-- (services/championships/service.py, execute), so the index never says less than the stream.
CREATE TABLE championship_members (
    championship_id text        NOT NULL,
    user_id         text        NOT NULL,
    since           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (championship_id, user_id)
);
CREATE INDEX championship_members_user_idx ON championship_members (user_id, since DESC);

-- The team invitations still waiting for an invitee's answer (one row per invitee), written with the proposal
-- and removed with his answer, the team's refusal by another invitee, or the team's registration
-- (services/championships/invitations.py): what a lobby lists, and what the caps on pending proposals count.
CREATE TABLE team_invites_pending (
    championship_id text        NOT NULL,
    team_id         text        NOT NULL,
    user_id         text        NOT NULL,
    proposed_by     text        NOT NULL,
    since           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (championship_id, team_id, user_id)
);
CREATE INDEX team_invites_pending_user_idx ON team_invites_pending (user_id, since DESC);
CREATE INDEX team_invites_pending_proposer_idx ON team_invites_pending (proposed_by, user_id);

-- Who proposed a table still waiting for answers: the caps on pending proposals count by proposer, by
-- proposer and invitee, and by invitee (services/tables/service.py, propose_table).
ALTER TABLE tables_index ADD COLUMN proposed_by text;
CREATE INDEX tables_index_invited_by_idx ON tables_index (proposed_by) WHERE status = 'invited';
CREATE INDEX tables_index_invited_seats_idx ON tables_index USING gin (seats) WHERE status = 'invited';

-- The championships and proposals stored before this migration.
INSERT INTO championship_members (championship_id, user_id, since)
SELECT substr(e.stream_id, 14), m.user_id, min(e.recorded_at)
  FROM events e
 CROSS JOIN LATERAL (
        SELECT jsonb_array_elements_text(coalesce(e.data->'players', '[]'::jsonb)
                                         || coalesce(e.data->'substitutes', '[]'::jsonb))
         WHERE e.event_type = 'team_registered'
        UNION ALL
        SELECT e.data->>'player_in' WHERE e.event_type = 'player_substituted'
       ) AS m(user_id)
 WHERE e.stream_id LIKE 'championship-%' AND e.event_type IN ('team_registered', 'player_substituted')
   AND m.user_id IS NOT NULL
 GROUP BY 1, 2
ON CONFLICT DO NOTHING;

INSERT INTO team_invites_pending (championship_id, team_id, user_id, proposed_by, since)
SELECT substr(p.stream_id, 14), p.data->>'team_id', w.user_id, p.data->>'by', p.recorded_at
  FROM events p
 CROSS JOIN LATERAL jsonb_array_elements_text(p.data->'waiting') AS w(user_id)
 WHERE p.stream_id LIKE 'team-invites-%' AND p.event_type = 'team_proposed'
   AND NOT EXISTS (SELECT 1 FROM events a
                    WHERE a.stream_id = p.stream_id AND a.event_type = 'team_invitation_answered'
                      AND a.data->>'team_id' = p.data->>'team_id'
                      AND (a.data->>'user' = w.user_id OR a.data->>'accepted' = 'false'))
   AND NOT EXISTS (SELECT 1 FROM events r
                    WHERE r.stream_id = 'championship-' || substr(p.stream_id, 14)
                      AND r.event_type = 'team_registered' AND r.data->>'team_id' = p.data->>'team_id')
ON CONFLICT DO NOTHING;

UPDATE tables_index t SET proposed_by = e.metadata->>'actor'
  FROM events e
 WHERE e.stream_id = 'table-' || t.table_id AND e.version = 1 AND e.event_type = 'table_proposed';
