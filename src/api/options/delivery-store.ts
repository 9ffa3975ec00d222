// The `--delivery-store` value: `sqlite:PATH` (one replica, the default) or `postgres` (several
// replicas). The PostgreSQL connection string holds a password, so it never comes from the
// command line: an environment variable or a file (a mounted Secret).
import type { StoreConfig } from "../delivery/index.ts";

export const POSTGRES_URL_ENV = "LIVEPEER_DELIVERY_POSTGRES_URL";
export const DEFAULT_DELIVERY_STORE = "sqlite:delivery.sqlite";

export interface ConnectionSources {
  /** The environment variable's value, if set. */
  env?: string | undefined;
  /** Reads the file named by --delivery-postgres-url-file, if given. */
  file?: (() => string) | undefined;
}

export function parseDeliveryStore(value: string, sources: ConnectionSources = {}): StoreConfig {
  const v = value.trim();
  if (v.startsWith("sqlite:")) {
    const file = v.slice("sqlite:".length);
    if (!file) throw new Error("--delivery-store sqlite: needs a file, e.g. sqlite:/data/delivery.sqlite");
    return { backend: "sqlite", file };
  }
  if (v === "postgres") {
    const fromFile = sources.file?.().trim();
    const connectionString = fromFile || sources.env?.trim();
    if (!connectionString) {
      throw new Error(
        `--delivery-store postgres needs a connection string: set ${POSTGRES_URL_ENV} or pass --delivery-postgres-url-file FILE (never on the command line)`,
      );
    }
    return { backend: "postgres", connectionString };
  }
  if (/^postgres(ql)?:\/\//.test(v)) {
    throw new Error(
      `--delivery-store takes 'postgres', not a connection string (it would show in the process list): set ${POSTGRES_URL_ENV} or pass --delivery-postgres-url-file FILE`,
    );
  }
  throw new Error(
    `--delivery-store ${JSON.stringify(v.slice(0, 100))} is not a store: use sqlite:PATH (e.g. sqlite:/data/delivery.sqlite) or postgres`,
  );
}
