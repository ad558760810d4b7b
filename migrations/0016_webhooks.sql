-- Webhooks for integrators (services/webhooks): an organiser's endpoints, what the outbox projection
-- (``webhooks_rm``) has queued for each from the log, and what the sender did with it.
-- webhook_endpoints: a target URL, the kinds of event it takes, for one championship or (championship_id
--   NULL) every one its owner organises; only events after from_position (the log's head when it was
--   registered) reach it, so a rebuild of the outbox queues nothing new for old events.
-- webhook_deliveries: one per endpoint and event (the event id is its idempotency key), its payload the
--   exact bytes signed; queued in the order the outbox reads the log (delivery_id), and sent in that order per
--   endpoint and championship (a pending one holds those after it).
-- webhook_attempts: every attempt (the delivery log). webhook_championships, webhook_teams and
--   webhook_matches: the names and pairings the payloads carry, kept by the same projection.

CREATE TABLE webhook_endpoints (
    endpoint_id text PRIMARY KEY,
    owner text NOT NULL,
    championship_id text,
    url text NOT NULL,
    kinds text[] NOT NULL,
    secret text NOT NULL,                        -- whsec_<base64>: the Standard Webhooks signing secret
    description text NOT NULL DEFAULT '',
    from_position bigint NOT NULL,
    enabled boolean NOT NULL DEFAULT true,
    disabled_reason text,
    failures integer NOT NULL DEFAULT 0,         -- failed attempts in a row (a success sets it back to 0)
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_owner_idx ON webhook_endpoints (owner, created_at);
CREATE INDEX webhook_endpoints_championship_idx ON webhook_endpoints (championship_id);

CREATE TABLE webhook_deliveries (
    delivery_id bigserial PRIMARY KEY,
    endpoint_id text NOT NULL REFERENCES webhook_endpoints ON DELETE CASCADE,
    event_id uuid NOT NULL,
    position bigint NOT NULL,
    championship_id text NOT NULL,
    kind text NOT NULL,
    payload text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,                 -- NULL: as soon as it is at the head of its line
    last_attempt_at timestamptz,
    last_status_code integer,
    last_error text,
    delivered_at timestamptz,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_line_idx ON webhook_deliveries (endpoint_id, championship_id, delivery_id)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, delivery_id DESC);

CREATE TABLE webhook_attempts (
    delivery_id bigint NOT NULL REFERENCES webhook_deliveries ON DELETE CASCADE,
    attempt integer NOT NULL,
    attempted_at timestamptz NOT NULL,
    status_code integer,                         -- NULL: no answer (refused, timed out, target not allowed)
    error text,
    duration_ms double precision NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);

CREATE TABLE webhook_championships (
    championship_id text PRIMARY KEY,
    name text NOT NULL,
    commitment text
);

CREATE TABLE webhook_teams (
    championship_id text NOT NULL,
    team_id text NOT NULL,
    name text NOT NULL,
    PRIMARY KEY (championship_id, team_id)
);

CREATE TABLE webhook_matches (
    championship_id text NOT NULL,
    match_id text NOT NULL,
    round integer NOT NULL,
    team_a text,
    team_b text,
    PRIMARY KEY (championship_id, match_id)
);
