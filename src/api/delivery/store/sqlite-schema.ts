// The SQLite schema, as numbered migrations applied once each (recorded in delivery_schema).
// Times are ms since the epoch. Append new migrations; never edit an applied one.

export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE delivery_events (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    stream_id TEXT,
    stream TEXT,
    payload TEXT,
    created_at INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    UNIQUE (user_id, project_id, id)
  );
  CREATE INDEX delivery_events_recorded ON delivery_events (recorded_at);
  -- The queue: unsettled deliveries only (a settled one is deleted; its attempts are in the log).
  CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY,
    event_seq INTEGER NOT NULL REFERENCES delivery_events (seq) ON DELETE CASCADE,
    webhook_id TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    leased_until INTEGER,
    claim_token TEXT,
    claimed_by TEXT,
    created_at INTEGER NOT NULL,
    last_error TEXT
  );
  -- A claim sets only leased_until, which no index holds.
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at);
  CREATE INDEX deliveries_event ON deliveries (event_seq);
  CREATE TABLE delivery_log (
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    success INTEGER NOT NULL,
    request_url TEXT NOT NULL,
    request_method TEXT NOT NULL,
    request_headers TEXT NOT NULL,
    request_body TEXT NOT NULL,
    response_status INTEGER,
    response_status_text TEXT,
    response_body TEXT,
    error TEXT
  );
  CREATE INDEX delivery_log_by_webhook ON delivery_log (webhook_id, created_at DESC, id);
  CREATE INDEX delivery_log_age ON delivery_log (created_at);
  CREATE TABLE webhook_facts (
    webhook_id TEXT PRIMARY KEY,
    last_triggered_at INTEGER,
    last_failure_at INTEGER,
    last_failure_error TEXT,
    last_failure_response TEXT,
    last_failure_status INTEGER,
    delivering INTEGER,
    delivering_at INTEGER,
    gone_revision TEXT,
    gone_at INTEGER,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_facts_updated ON webhook_facts (updated_at);
  `,
  // 2: stream starts shared by every process on the file (a repeated -authWebhookUrl call is one start).
  `
  CREATE TABLE open_streams (
    key TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL
  );
  `,
  // 3: what remote signers' tenants spent, counted by the auth webhook (signer-spend.ts). Wei as
  // decimal text (amounts pass 2^63); the API adds them up.
  `
  CREATE TABLE signer_sessions (
    signer TEXT NOT NULL,
    state_id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    start_seq INTEGER NOT NULL,
    spent TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (signer, state_id)
  );
  CREATE INDEX signer_sessions_updated ON signer_sessions (updated_at);
  CREATE TABLE signer_spend_days (
    signer TEXT NOT NULL,
    tenant TEXT NOT NULL,
    day TEXT NOT NULL,
    spent TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (signer, tenant, day)
  );
  `,
];
