-- Deal reviews and the evaluation bar (issue 49; domain/baloot/review.py, domain/baloot/evaluation.py,
-- services/review.py).
-- fairplay_deals.requested_at: a review asked for a deal not analysed yet; the analysers take such deals first.
-- review_requests: reviews asked for deals the projection has not queued yet (it has not read their end); the
--   projection queues such a deal with its request's time, and the analysers clear the request.
-- fairplay_deals.view_values: the review's values of each card choice (domain/baloot/viewvalues.py), by the
--   index of its event: {"12": [v, ...]} in the order of the decision's options.
-- fairplay_deals.reviewed: the review values are computed and the deal's review_seats rows written (at once
--   for a deal whose review was asked for; otherwise when the analysers have nothing else to do).
-- review_seats: each analysed deal's choices by seat, chooser and phase (bidding, leading, following,
--   trumping): how many, the GP they gave away by the chooser's own view, and the marks; a player's accuracy
--   over time sums them.
-- evaluations: the evaluation bar's values of a table's positions (after the event at ``version``), by basis:
--   'public' (from what anyone may see) in the clear; 'open' (the true hands) sealed with a key derived from
--   the server secret while it tells what the hands hold (``sealed``), so that a reader of the database learns
--   nothing of a deal in play from it.
-- evaluation_watch: the deals someone is watching (a spectator's bar, a replay's curve) until ``until``: the
--   evaluator computes only those.

ALTER TABLE fairplay_deals ADD COLUMN requested_at timestamptz;
ALTER TABLE fairplay_deals ADD COLUMN reviewed boolean NOT NULL DEFAULT false;
ALTER TABLE fairplay_deals ADD COLUMN view_values jsonb;
CREATE INDEX fairplay_deals_requested_idx ON fairplay_deals (requested_at) WHERE status = 'pending' AND requested_at IS NOT NULL;
CREATE TABLE review_requests (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, deal_no)
);
CREATE INDEX fairplay_deals_unreviewed_idx ON fairplay_deals (table_id, deal_no) WHERE status = 'done' AND NOT reviewed;

CREATE TABLE review_seats (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    seat integer NOT NULL,
    by text NOT NULL,
    phase text NOT NULL,
    player text NOT NULL,
    shared boolean NOT NULL,
    analysed_at timestamptz NOT NULL DEFAULT now(),
    decisions integer NOT NULL,
    cost double precision NOT NULL,
    inaccuracies integer NOT NULL,
    mistakes integer NOT NULL,
    blunders integer NOT NULL,
    PRIMARY KEY (table_id, deal_no, seat, by, phase)
);
CREATE INDEX review_seats_player_idx ON review_seats (player, analysed_at);

CREATE TABLE evaluations (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    version bigint NOT NULL,
    basis text NOT NULL CHECK (basis IN ('public', 'open')),
    value bytea NOT NULL,                  -- msgspec JSON of domain/baloot/evaluation.py Evaluation, or sealed
    sealed boolean NOT NULL,
    computed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, deal_no, basis, version)
);

CREATE TABLE evaluation_watch (
    table_id text NOT NULL,
    deal_no integer NOT NULL,
    basis text NOT NULL CHECK (basis IN ('public', 'open')),
    until timestamptz NOT NULL,
    PRIMARY KEY (table_id, deal_no, basis)
);
CREATE INDEX evaluation_watch_until_idx ON evaluation_watch (until);
