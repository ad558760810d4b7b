-- The API's own tables: who may do what (identity is not a game event), the server secret that deals
-- seeds are derived from, and a read model listing tables for spectators.

CREATE TABLE users (
    user_id     text PRIMARY KEY,
    name        text        NOT NULL,
    kind        text        NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'bot')),
    token_hash  bytea       NOT NULL UNIQUE,       -- sha256 of the bearer token; the token is never stored
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Roles on a scope: ('championship', id, user, 'organiser' | 'referee'), ('table', id, user, 'referee').
CREATE TABLE grants (
    scope       text NOT NULL,
    scope_id    text NOT NULL,
    user_id     text NOT NULL REFERENCES users,
    role        text NOT NULL,
    PRIMARY KEY (scope, scope_id, user_id, role)
);

CREATE TABLE server_secret (
    id          boolean PRIMARY KEY DEFAULT true CHECK (id),
    secret      bytea   NOT NULL
);

CREATE TABLE tables_index (
    table_id        text PRIMARY KEY,
    championship_id text,
    match_id        text,
    game_no         integer     NOT NULL DEFAULT 1,
    profile         text        NOT NULL,
    mode            text        NOT NULL,
    status          text        NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'finished')),
    seats           text[]      NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tables_index_status_idx ON tables_index (status, created_at);
CREATE INDEX tables_index_match_idx ON tables_index (championship_id, match_id);
