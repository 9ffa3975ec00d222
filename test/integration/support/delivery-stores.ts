// The two delivery store backends, for running one suite on both: SQLite in a temp file and
// PostgreSQL from Debian's package (one throwaway server per test file, a fresh database per
// store). When PostgreSQL cannot run here the PostgreSQL tests fail, saying why: never skipped.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StoreConfig } from "../../../src/api/delivery/store/open-store.ts";
import { openDeliveryStore } from "../../../src/api/delivery/store/open-store.ts";
import type { DeliveryStore } from "../../../src/api/delivery/store/types.ts";
import { type Postgres, startPostgres } from "../../../src/dev/postgres.ts";

export type Backend = "sqlite" | "postgres";
export const BACKENDS: Backend[] = ["sqlite", "postgres"];

export interface StoreFixture {
  /** A fresh, empty store's configuration. */
  newConfig(backend: Backend): Promise<StoreConfig>;
  open(config: StoreConfig): Promise<DeliveryStore>;
  /** Closes every store opened here, stops PostgreSQL, removes temp files. */
  cleanup(): Promise<void>;
}

export function storeFixture(): StoreFixture {
  const dir = mkdtempSync(path.join(os.tmpdir(), "delivery-store-"));
  const opened: DeliveryStore[] = [];
  let pg: Promise<Postgres> | undefined;
  let n = 0;
  return {
    async newConfig(backend) {
      n++;
      if (backend === "sqlite") return { backend, file: path.join(dir, `store-${n}.sqlite`) };
      pg ??= startPostgres({ progress: (l) => process.stderr.write(`${l}\n`) });
      let server: Postgres;
      try {
        server = await pg;
      } catch (err) {
        throw new Error(`the PostgreSQL backend cannot be tested here: ${(err as Error).message}`);
      }
      return { backend, connectionString: await server.createDatabase(`delivery_${process.pid}_${n}`) };
    },
    async open(config) {
      const store = await openDeliveryStore(config);
      opened.push(store);
      return store;
    },
    async cleanup() {
      await Promise.allSettled(opened.map((s) => s.close()));
      if (pg) await (await pg.catch(() => undefined))?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
