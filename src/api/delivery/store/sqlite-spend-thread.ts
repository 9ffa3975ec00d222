// The SQLite spend writer's thread (started by sqlite-spend-writer.ts): its own connection to the
// store's file (WAL: it writes while the API's connection reads and writes; the busy timeout makes
// either wait for the other's transaction), one transaction per batch, answering each batch with
// its days' totals and the sessions stored otherwise than recorded.
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import { batchResult } from "./signer-spend.ts";
import { recordSignerSpendTx, signerSpendStatements } from "./sqlite-signer-spend.ts";
import {
  flatRecords,
  flatResult,
  type SpendThreadData,
  type SpendWrite,
  type SpendWritten,
} from "./sqlite-spend-writer.ts";

const port = parentPort;
if (!port)
  throw new Error("sqlite-spend-thread.ts runs as a worker thread (sqlite-spend-writer.ts starts it)");
const { file, busyTimeoutMs } = workerData as SpendThreadData;
const db = new DatabaseSync(file, { timeout: busyTimeoutMs });
// The store's connection checkpoints (in its own thread); this one never does it inside a commit.
db.exec("PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0");
const statements = signerSpendStatements(db);

port.on("message", (m: SpendWrite | "stop") => {
  if (m === "stop") {
    db.close();
    port.postMessage("stopped");
    return;
  }
  let answer: SpendWritten;
  try {
    const records = flatRecords.from(m.records);
    answer = {
      n: m.n,
      result: flatResult.to(batchResult(records, recordSignerSpendTx(db, statements, records))),
    };
  } catch (err) {
    answer = { n: m.n, error: (err as Error).message };
  }
  port.postMessage(answer);
});
