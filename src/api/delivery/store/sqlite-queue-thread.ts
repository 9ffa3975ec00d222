// The SQLite queue writer's thread (started by sqlite-queue-writer.ts): its own connection to the
// store's file (WAL: it writes while the store's connection reads; the busy timeout makes either
// wait for the other's transaction), running the store's writes (sqlite-queue.ts) for the API
// thread, one message in and one out per batch, as JSON text.
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import {
  claimTx,
  endStreamRun,
  enqueueTx,
  forgetWebhookTx,
  openStreamRun,
  otherStatements,
  pruneTx,
  queueStatements,
  settleTx,
} from "./sqlite-queue.ts";
import type { QueueAnswer, QueueCall, QueueThreadData } from "./sqlite-queue-writer.ts";
import type { ClaimRequest, EnqueueLease, EnqueueRequest, Retention, Settlement } from "./types.ts";

const port = parentPort;
if (!port)
  throw new Error("sqlite-queue-thread.ts runs as a worker thread (sqlite-queue-writer.ts starts it)");
const { file, busyTimeoutMs, generation } = workerData as QueueThreadData;
const db = new DatabaseSync(file, { timeout: busyTimeoutMs });
// As the store's connection: the store's checkpointer thread checkpoints, never a commit here.
db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 0");
const s = queueStatements(db);
const o = otherStatements(db);
let claims = 0;
// Unique per lease: the owner, this thread (a restarted one starts counting again) and the count.
const token = (owner: string | undefined, now: number) => `${owner}:${generation}.${++claims}:${now}`;

function run(m: QueueCall): string {
  switch (m.op) {
    case "enqueue": {
      const [batch, now, lease] = JSON.parse(m.args) as [EnqueueRequest[], number, EnqueueLease | null];
      return JSON.stringify(enqueueTx(db, s, batch, now, lease ?? undefined, token(lease?.owner, now)));
    }
    case "claim": {
      const r = JSON.parse(m.args) as ClaimRequest;
      return JSON.stringify(claimTx(db, s, r, token(r.owner, r.now)));
    }
    case "settle": {
      const [batch, now] = JSON.parse(m.args) as [Settlement[], number];
      settleTx(db, s, batch, now);
      return "";
    }
    case "prune": {
      const [now, retention] = JSON.parse(m.args) as [number, Retention];
      return JSON.stringify(pruneTx(db, o, now, retention));
    }
    case "forgetWebhook":
      forgetWebhookTx(db, m.args);
      return "";
    case "openStream": {
      const [key, now, windowMs] = JSON.parse(m.args) as [string, number, number];
      return String(openStreamRun(o, key, now, windowMs));
    }
    case "endStream":
      endStreamRun(o, m.args);
      return "";
  }
}

port.on("message", (m: QueueCall | "stop") => {
  if (m === "stop") {
    db.close();
    port.postMessage("stopped");
    return;
  }
  let answer: QueueAnswer;
  try {
    answer = { n: m.n, result: run(m) };
  } catch (err) {
    answer = { n: m.n, error: (err as Error).message };
  }
  port.postMessage(answer);
});
