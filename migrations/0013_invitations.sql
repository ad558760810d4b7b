-- Accounts an organiser makes for players who have none yet (a teams file naming "+login"): the login is
-- reserved with no password (a hash that verifies nothing), and the person claims it with a one-time code
-- (only its SHA-256 is kept), setting his own password (services/accounts.py).

CREATE TABLE account_invitations (
    code_hash   bytea       PRIMARY KEY,
    user_id     text        NOT NULL UNIQUE REFERENCES users,
    invited_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);
