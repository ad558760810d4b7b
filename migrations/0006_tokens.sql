-- Bearer tokens with an expiry, revocable one by one or all at once (issue 9). A user may hold several
-- (one per device); only each token's SHA-256 is stored. Today's users.token_hash moves here, so every
-- existing user keeps its token, with the default lifetime counted from this migration.

CREATE TABLE tokens (
    token_hash  bytea       PRIMARY KEY,           -- sha256 of the bearer token; the token is never stored
    user_id     text        NOT NULL REFERENCES users,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz                          -- NULL while the token is good
);
CREATE INDEX tokens_user_idx ON tokens (user_id);

INSERT INTO tokens (token_hash, user_id, created_at, expires_at)
SELECT token_hash, user_id, created_at, now() + interval '30 days' FROM users;

ALTER TABLE users DROP COLUMN token_hash;
