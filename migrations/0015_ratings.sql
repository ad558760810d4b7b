-- Players' ratings (openskill, Plackett-Luce): a read model kept by the workers' projection runner from the
-- championships' match results (the card game) and the finished dice tables (Balut, every player for himself),
-- in the log's order, so a rebuild from zero gives the same rows.
-- ratings_updates: every update with the absolute values it left (what a player's history is read from);
-- ratings: each player's current rating per game; ratings_rosters: who plays for each team (and the game);
-- ratings_tables: who sits where at each table of a game rated by table (dice), until its game ends.

CREATE TABLE ratings_rosters (
    championship_id text NOT NULL,
    team_id text NOT NULL,
    game text NOT NULL,
    players text[] NOT NULL,
    PRIMARY KEY (championship_id, team_id)
);

CREATE TABLE ratings_tables (
    table_id text PRIMARY KEY,
    game text NOT NULL,
    seats text[] NOT NULL
);

CREATE TABLE ratings (
    game text NOT NULL,
    user_id text NOT NULL,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    ordinal double precision NOT NULL,          -- mu - 3 sigma: what the leaderboard ranks by
    games integer NOT NULL,
    PRIMARY KEY (game, user_id)
);
CREATE INDEX ratings_leaderboard_idx ON ratings (game, ordinal DESC, user_id);

CREATE TABLE ratings_updates (
    position bigint NOT NULL,                   -- the match result's place in the log
    game text NOT NULL,
    user_id text NOT NULL,
    championship_id text,                       -- a match's championship (a dice table's, if it has one)
    match_id text,                              -- the match rated, or
    table_id text,                              -- the dice table rated
    won boolean NOT NULL,                       -- first place at a dice table
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    PRIMARY KEY (position, user_id)
);
CREATE INDEX ratings_updates_user_idx ON ratings_updates (user_id, position DESC);
