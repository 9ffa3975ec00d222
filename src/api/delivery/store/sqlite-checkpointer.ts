// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold and ends in an fsync: on a busy disk that held the event loop for up to
// 200 ms (measured), i.e. every delivery in flight waited. So the store's own connection never
// checkpoints (wal_autocheckpoint=0) and a worker thread with its own connection runs passive
// checkpoints (they never block writers) on a timer.
import { Worker } from "node:worker_threads";

// Plain JavaScript evaluated in the thread (no file to find after a build).
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(workerData.file, { timeout: 5000 });
const checkpoint = () => {
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message) });
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on("message", (m) => {
  if (m !== "stop") return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage("stopped");
});
`;

export class SqliteCheckpointer {
  readonly #worker: Worker;

  constructor(file: string, everyMs = 500, onError?: (message: string) => void) {
    this.#worker = new Worker(THREAD, { eval: true, workerData: { file, everyMs } });
    this.#worker.on("message", (m: unknown) => {
      if (typeof m === "object" && m && "error" in m) onError?.(`WAL checkpoint failed: ${String(m.error)}`);
    });
    this.#worker.on("error", (err) => onError?.(`WAL checkpoint thread failed: ${err.message}`));
    this.#worker.unref();
  }

  /** A last checkpoint, then the thread ends. */
  async stop(): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      this.#worker.on("message", (m) => {
        if (m === "stopped") {
          clearTimeout(timer);
          resolve();
        }
      });
      this.#worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#worker.postMessage("stop");
    await stopped;
    await this.#worker.terminate();
  }
}
