-- Accounts people sign back into (issue 25): a login and an argon2id password hash per person
-- (services/accounts.py), and tokens that are browser sessions: the same rows as bearer tokens (so that
-- revoking one ends the live streams it opened), carried in an HttpOnly cookie instead of a header.

CREATE TABLE credentials (
    user_id        text        PRIMARY KEY REFERENCES users,
    login          text        NOT NULL UNIQUE,    -- NFKC, case-folded: the name a person signs in with
    password_hash  text        NOT NULL,           -- argon2id, in its PHC string form
    changed_at     timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE tokens ADD COLUMN via text NOT NULL DEFAULT 'bearer' CHECK (via IN ('bearer', 'session'));
