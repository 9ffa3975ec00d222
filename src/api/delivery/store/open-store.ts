// Which store to open, from configuration: an SQLite file (one replica, the embedded default) or
// a PostgreSQL connection string (several replicas).
import { PostgresDeliveryStore } from "./postgres-store.ts";
import { SqliteDeliveryStore } from "./sqlite-store.ts";
import type { DeliveryStore } from "./types.ts";

export type StoreConfig =
  | { backend: "sqlite"; file: string }
  | { backend: "postgres"; connectionString: string; maxConnections?: number | undefined };

export async function openDeliveryStore(
  config: StoreConfig,
  onError?: (message: string) => void,
): Promise<DeliveryStore> {
  if (config.backend === "sqlite") return new SqliteDeliveryStore(config.file, onError);
  return PostgresDeliveryStore.open({ ...config, onError });
}
