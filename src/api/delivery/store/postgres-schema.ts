// The PostgreSQL schema, as numbered migrations applied once each under an advisory lock (several
// replicas may start at once). Times are ms since the epoch (bigint). Append; never edit.

/** pg_advisory_xact_lock key for migrations ("lpdlvr" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x6c7064_6c7672;

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE delivery_events (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text NOT NULL,
    user_id text NOT NULL,
    project_id text NOT NULL,
    kind text NOT NULL,
    stream_id text,
    stream text,
    payload text,
    created_at bigint NOT NULL,
    recorded_at bigint NOT NULL,
    UNIQUE (user_id, project_id, id)
  );
  CREATE INDEX delivery_events_recorded ON delivery_events (recorded_at);
  -- The queue: unsettled deliveries only (a settled one is deleted; its attempts are in the log).
  CREATE TABLE deliveries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_seq bigint NOT NULL REFERENCES delivery_events (seq) ON DELETE CASCADE,
    webhook_id text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    leased_until bigint,
    claim_token text,
    claimed_by text,
    created_at bigint NOT NULL,
    last_error text
  ) WITH (fillfactor = 70);
  -- A claim sets only leased_until, which no index holds: a HOT update, no index writes.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at);
  CREATE INDEX deliveries_event ON deliveries (event_seq);
  CREATE TABLE delivery_log (
    id text PRIMARY KEY,
    webhook_id text NOT NULL,
    event_id text NOT NULL,
    event text NOT NULL,
    created_at bigint NOT NULL,
    duration_ms integer NOT NULL,
    success boolean NOT NULL,
    request_url text NOT NULL,
    request_method text NOT NULL,
    request_headers text NOT NULL,
    request_body text NOT NULL,
    response_status integer,
    response_status_text text,
    response_body text,
    error text
  );
  CREATE INDEX delivery_log_by_webhook ON delivery_log (webhook_id, created_at DESC, id);
  CREATE INDEX delivery_log_age ON delivery_log (created_at);
  CREATE TABLE webhook_facts (
    webhook_id text PRIMARY KEY,
    last_triggered_at bigint,
    last_failure_at bigint,
    last_failure_error text,
    last_failure_response text,
    last_failure_status integer,
    delivering boolean,
    delivering_at bigint,
    gone_revision text,
    gone_at bigint,
    updated_at bigint NOT NULL
  );
  CREATE INDEX webhook_facts_updated ON webhook_facts (updated_at);
  `,
  // 2: less work per delivery (measured: the enqueue statement's server CPU about a fifth lower),
  // and stream starts shared by every replica (a repeated -authWebhookUrl call is one start).
  // The foreign key cost a lookup and a row lock on the event per queued delivery, for a cascade
  // nothing uses (events are pruned only once no delivery refers to them), and its index served
  // only it. The age indexes become BRIN: rows arrive in time order, so a block range summary
  // finds what retention deletes at a fraction of a B-tree's upkeep.
  `
  ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_seq_fkey;
  DROP INDEX deliveries_event;
  DROP INDEX delivery_events_recorded;
  CREATE INDEX delivery_events_recorded ON delivery_events USING brin (recorded_at);
  DROP INDEX delivery_log_age;
  CREATE INDEX delivery_log_age ON delivery_log USING brin (created_at);
  CREATE TABLE open_streams (
    key text PRIMARY KEY,
    started_at bigint NOT NULL
  );
  `,
  // 3: what remote signers' tenants spent, counted by the auth webhook (signer-spend.ts); wei as
  // numeric (amounts pass 2^63).
  `
  CREATE TABLE signer_sessions (
    signer text NOT NULL,
    state_id text NOT NULL,
    tenant text NOT NULL,
    started_at bigint NOT NULL,
    start_seq bigint NOT NULL,
    spent numeric(78, 0) NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (signer, state_id)
  );
  CREATE INDEX signer_sessions_updated ON signer_sessions (updated_at);
  CREATE TABLE signer_spend_days (
    signer text NOT NULL,
    tenant text NOT NULL,
    day text NOT NULL,
    spent numeric(78, 0) NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (signer, tenant, day)
  );
  `,
];
