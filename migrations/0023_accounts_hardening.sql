-- The accounts' security review (issue 45; services/accounts.py, services/api/limits.py).

-- Sign-in attempts, reserved BEFORE the password is checked (one UPSERT per attempt, so that a burst, from
-- one API process or several, cannot get more checks than the rule gives): per (login, client address) pair
-- an exponential back-off after a few free failures, never a login-wide lock; per address across logins a
-- pace past a budget an hour. Times are seconds since the epoch, from the API's (injectable) clock.
CREATE TABLE sign_in_failures (
    login     text             NOT NULL,      -- the login tried (normalised), or "user:<id>", "claim"
    address   text             NOT NULL,
    failures  integer          NOT NULL,      -- attempts reserved and not cleared by a success
    next_at   double precision NOT NULL,      -- the pair's next attempt waits until then
    last_at   double precision NOT NULL,
    PRIMARY KEY (login, address)
);
CREATE TABLE sign_in_addresses (
    address       text             PRIMARY KEY,
    window_start  double precision NOT NULL,
    failures      integer          NOT NULL,
    next_at       double precision NOT NULL
);

-- A login's UTS #39 skeleton (Unicode's confusables, services/accounts.py): two logins that look alike have
-- one, and only one of them may exist. Filled for the rows stored before by the API at its start (Python
-- computes skeletons, not SQL); the index ignores rows not filled yet.
ALTER TABLE credentials ADD COLUMN skeleton text;
CREATE UNIQUE INDEX credentials_skeleton_idx ON credentials (skeleton) WHERE skeleton IS NOT NULL;

-- A person's display name as compared (NFKC, case-folded): no two people share one (bots may). Rows stored
-- before keep a NULL key (their names were never compared); the API fills the keys it can at its start.
ALTER TABLE users ADD COLUMN name_key text;
CREATE UNIQUE INDEX users_human_name_key_idx ON users (name_key) WHERE name_key IS NOT NULL AND kind = 'human';

-- The accounts an organiser's imports made, per UTC day: counted in the import's own statement, so that
-- concurrent imports cannot pass the budget (BALOOT_IMPORT_ACCOUNT_LIMIT).
CREATE TABLE invited_accounts_daily (
    organiser  text    NOT NULL,
    day        date    NOT NULL,
    accounts   integer NOT NULL,
    PRIMARY KEY (organiser, day)
);
