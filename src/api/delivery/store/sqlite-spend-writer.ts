// Remote signers' spend written to the SQLite store from a thread of its own: the transaction (a
// row per payment, about 9 µs of the API thread's time per payment in the auth bench) runs on a
// second core, so the event loop only hands over a batch and takes the answers. The same contract
// as the store's recordSignerSpend. A batch posted is written once the thread answers; a process
// killed before that loses it (what is in flight), as it would lose a batch not yet committed on
// the API thread. A thread that fails or exits fails what it had (the ledger retries those), and
// the next write starts another.
import { fileURLToPath } from "node:url";
import type { SignerSpendBatchResult, SignerSpendRecord } from "./signer-spend.ts";
import { type ThreadAnswer, ThreadCalls } from "./thread-calls.ts";

export interface SpendThreadData {
  file: string;
  busyTimeoutMs: number;
}
/** A batch to write: its records as flatRecords encodes them. */
export interface SpendWrite {
  n: number;
  records: string;
}
export type SpendWritten = ThreadAnswer;

// Across the thread boundary a batch goes as one JSON string of a flat array (wei as decimal
// text): the structured clone of an object, or of a BigInt, per record cost the API thread more
// than the SQL it moved away (measured: bench/signer-auth.ts; a string is one copy).
type Flat = (string | number)[];
const RECORD_FIELDS = 8;
const SESSION_FIELDS = 6;
const DAY_FIELDS = 4;

export const flatRecords = {
  to(records: readonly SignerSpendRecord[]): string {
    const out: Flat = new Array(records.length * RECORD_FIELDS);
    let i = 0;
    for (const r of records) {
      out[i++] = r.signer;
      out[i++] = r.stateId;
      out[i++] = r.tenant;
      out[i++] = r.startedAt;
      out[i++] = r.startSeq;
      out[i++] = r.spent.toString();
      out[i++] = r.day;
      out[i++] = r.at;
    }
    return JSON.stringify(out);
  },
  from(text: string): SignerSpendRecord[] {
    const flat = JSON.parse(text) as Flat;
    const out: SignerSpendRecord[] = [];
    for (let i = 0; i < flat.length; i += RECORD_FIELDS) {
      out.push({
        signer: flat[i] as string,
        stateId: flat[i + 1] as string,
        tenant: flat[i + 2] as string,
        startedAt: flat[i + 3] as number,
        startSeq: flat[i + 4] as number,
        spent: BigInt(flat[i + 5] as string),
        day: flat[i + 6] as string,
        at: flat[i + 7] as number,
      });
    }
    return out;
  },
};

export const flatResult = {
  to(r: SignerSpendBatchResult): string {
    return JSON.stringify({
      days: r.days.flatMap((d) => [d.signer, d.tenant, d.day, d.spent.toString()]),
      sessions: r.sessions.flatMap((s) => [
        s.signer,
        s.stateId,
        s.tenant,
        s.startedAt,
        s.startSeq,
        s.spent.toString(),
      ]),
    });
  },
  from(text: string): SignerSpendBatchResult {
    const f = JSON.parse(text) as { days: Flat; sessions: Flat };
    const days: SignerSpendBatchResult["days"] = [];
    for (let i = 0; i < f.days.length; i += DAY_FIELDS) {
      const [signer, tenant, day, spent] = f.days.slice(i, i + DAY_FIELDS) as string[];
      days.push({ signer: signer!, tenant: tenant!, day: day!, spent: BigInt(spent!) });
    }
    const sessions: SignerSpendBatchResult["sessions"] = [];
    for (let i = 0; i < f.sessions.length; i += SESSION_FIELDS) {
      const [signer, stateId, tenant, startedAt, startSeq, spent] = f.sessions.slice(i, i + SESSION_FIELDS);
      sessions.push({
        signer: signer as string,
        stateId: stateId as string,
        tenant: tenant as string,
        startedAt: startedAt as number,
        startSeq: startSeq as number,
        spent: BigInt(spent as string),
      });
    }
    return { days, sessions };
  },
};

// The thread's file beside this one, .ts from the sources and .js from the build.
const THREAD = fileURLToPath(import.meta.url).replace(
  /sqlite-spend-writer(\.[cm]?[jt]s)$/,
  "sqlite-spend-thread$1",
);

export class SqliteSpendWriter {
  readonly #thread: ThreadCalls;

  /** `file`: the store's SQLite file (migrated by the store before the first write). */
  constructor(file: string, opts: { busyTimeoutMs?: number } = {}) {
    const data: SpendThreadData = { file, busyTimeoutMs: opts.busyTimeoutMs ?? 5_000 };
    this.#thread = new ThreadCalls({
      script: THREAD,
      name: "signer-spend-writer",
      what: "the signer spend writer thread",
      closed: "the spend writer was closed",
      workerData: () => data,
      errorPrefix: "signer spend not written: ",
    });
  }

  /** One transaction in the thread; resolves once it is committed. */
  async write(records: readonly SignerSpendRecord[]): Promise<SignerSpendBatchResult> {
    return flatResult.from(
      await this.#thread.call({ records: flatRecords.to(records) } satisfies Omit<SpendWrite, "n">),
    );
  }

  /** Ends the thread after what it has been given (its connection closed); later writes fail. */
  close(): Promise<void> {
    return this.#thread.close();
  }

  /** For tests: the thread ends as if it had crashed. */
  crashThreadForTest(): Promise<void> {
    return this.#thread.crashForTest();
  }
}

/** A writer thread for an SQLite store in a file; undefined for PostgreSQL (its server writes) and :memory:. */
export function sqliteSpendWriterFor(store: {
  backend: "sqlite" | "postgres";
  file?: string;
}): SqliteSpendWriter | undefined {
  return store.backend === "sqlite" && store.file && store.file !== ":memory:"
    ? new SqliteSpendWriter(store.file)
    : undefined;
}
