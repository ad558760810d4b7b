-- Fair-play analysis (services/fairplay): the card games' tables and finished deals as the projection
-- ``fairplay_rm`` reads them from the log, and each deal's analysis once the analyser has made it.
-- fairplay_tables: a table's game (one the seam gives a fair-play analysis: the card game), seats (user ids), championship and whether its deals are shared boards
--   (daily deal, duplicate), and how many deals it has started.
-- fairplay_deals: one per finished deal (its seed revealed), queued ('pending') by the projection; an
--   analyser (any worker process) claims a few in a short transaction (``claimed_until``: its lease; never a
--   transaction held open while it computes, which would hold back every reader of the log), fills ``decisions`` (domain/baloot/fairplay.py CardDecision,
--   as JSON) from the table's events and a seed derived from the deal, and marks it 'done' ('failed' with the
--   error when the events cannot be analysed). A rebuild queues every deal again and the analysis gives the
--   same decisions (the same events, the same seed).

CREATE TABLE fairplay_tables (
    table_id text PRIMARY KEY,
    game text NOT NULL,                          -- a game whose seam has a fair-play analysis
    championship_id text,
    seats text[] NOT NULL,
    bots text[] NOT NULL,                        -- the bot level by seat ('' for a person)
    shared boolean NOT NULL,
    deals integer NOT NULL DEFAULT 0
);

CREATE TABLE fairplay_deals (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    game text NOT NULL,
    version bigint NOT NULL,                     -- the stream version of the event that ended it (its seed revealed)
    championship_id text,
    seats text[] NOT NULL,
    shared boolean NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    claimed_until timestamptz,
    decisions jsonb,
    error text,
    analysed_at timestamptz,
    PRIMARY KEY (table_id, deal_no)
);
CREATE INDEX fairplay_deals_pending_idx ON fairplay_deals (table_id, deal_no) WHERE status = 'pending';
CREATE INDEX fairplay_deals_championship_idx ON fairplay_deals (championship_id);
CREATE INDEX fairplay_deals_seats_idx ON fairplay_deals USING gin (seats);

-- fairplay_seats: each analysed deal's counts by seat and by who chose (``by``: 'player' a person, 'bot' a bot
--   in the seat, 'clock' the turn clock), for the reports' sums: decisions with a choice, telling ones and how
--   many followed the true hands, partner-telling ones and how many followed the partner's hand.
CREATE TABLE fairplay_seats (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    seat integer NOT NULL,
    by text NOT NULL,
    player text NOT NULL,
    championship_id text,
    shared boolean NOT NULL,
    decisions integer NOT NULL,
    telling integer NOT NULL,
    followed integer NOT NULL,
    partner_telling integer NOT NULL,
    followed_partner integer NOT NULL,
    bid_telling integer NOT NULL,
    bid_followed integer NOT NULL,
    PRIMARY KEY (table_id, deal_no, seat, by)
);
CREATE INDEX fairplay_seats_championship_idx ON fairplay_seats (championship_id, player);
CREATE INDEX fairplay_seats_player_idx ON fairplay_seats (player);
