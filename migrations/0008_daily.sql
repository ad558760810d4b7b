-- The daily deal's read model (services/daily/projection.py, docs/daily.md): each finished board's result,
-- written by the projection runner from the board tables' streams, and the day's scores against the field,
-- recomputed from the results (ranks included, so a page is an index range).

CREATE TABLE daily_results (
    day       date    NOT NULL,
    profile   text    NOT NULL,
    board     integer NOT NULL,
    user_id   text    NOT NULL,
    margin    integer NOT NULL,     -- the player's team's GP minus the other team's on that deal
    position  bigint  NOT NULL,     -- the log position of the event that ended the board
    PRIMARY KEY (day, profile, board, user_id)
);

CREATE TABLE daily_days (
    day          date    NOT NULL,
    profile      text    NOT NULL,
    results      integer NOT NULL DEFAULT 0,    -- results stored so far
    scored       integer NOT NULL DEFAULT 0,    -- results the scores were computed from
    scored_at    timestamptz,                   -- when (a live board is recomputed at most so often)
    PRIMARY KEY (day, profile)
);

CREATE TABLE daily_scores (
    day          date    NOT NULL,
    profile      text    NOT NULL,
    user_id      text    NOT NULL,
    mp           integer NOT NULL,   -- sum of the boards' matchpoint shares, 10,000 = one board's top
    imps         integer NOT NULL,
    boards       integer NOT NULL,
    finished_at  bigint  NOT NULL,   -- log position of the entry's last result (earlier ranks first)
    mp_rank      integer NOT NULL,
    imp_rank     integer NOT NULL,
    PRIMARY KEY (day, profile, user_id)
);
CREATE INDEX daily_scores_mp_idx ON daily_scores (day, profile, mp_rank);
CREATE INDEX daily_scores_imp_idx ON daily_scores (day, profile, imp_rank);
CREATE INDEX daily_scores_user_idx ON daily_scores (user_id, day DESC);

-- IMPs for a GP difference: the scale of domain/daily.py (IMP_SCALE), the same numbers; width_bucket counts
-- the thresholds at or below |d| (a plain expression, so the planner inlines it).
CREATE FUNCTION daily_imps(d integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT sign(d)::integer * width_bucket(abs(d), ARRAY[2, 5, 9, 13, 18, 24, 31, 39, 48, 60, 76, 100])
$$;
