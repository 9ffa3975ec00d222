// A delivery worker in its own process, for the tests that kill one with SIGKILL or run two side
// by side: opens the store named in $DELIVERY_CHILD (JSON), optionally enqueues events, prints
// READY, and on SIGTERM stops cleanly and prints how many attempts it made.
import { LOOPBACK_ALLOWED } from "../../../src/api/delivery/address-policy.ts";
import { DeliveryEngine } from "../../../src/api/delivery/engine.ts";
import type { DeliveryTarget } from "../../../src/api/delivery/model.ts";
import type { RetrySchedule } from "../../../src/api/delivery/retry-policy.ts";
import { openDeliveryStore, type StoreConfig } from "../../../src/api/delivery/store/open-store.ts";

export interface ChildConfig {
  store: StoreConfig;
  targets: Record<string, DeliveryTarget>;
  enqueue?: { ids: string[]; webhookIds: string[] };
  timeoutMs: number;
  leaseMs: number;
  pollMs: number;
  schedule: RetrySchedule;
  maxInFlight?: number;
}

const config = JSON.parse(process.env.DELIVERY_CHILD ?? "{}") as ChildConfig;
const store = await openDeliveryStore(config.store);
let attempts = 0;
const engine = new DeliveryEngine({
  store,
  resolveTarget: (id) => config.targets[id],
  allow: LOOPBACK_ALLOWED,
  timeoutMs: config.timeoutMs,
  leaseMs: config.leaseMs,
  pollMs: config.pollMs,
  maxInFlight: config.maxInFlight,
  schedule: config.schedule,
  owner: `child-${process.pid}`,
  onAttempt: (r) => {
    if (r.result !== "released" && r.result !== "dropped") attempts++;
  },
});
engine.start();
if (config.enqueue) {
  const { ids, webhookIds } = config.enqueue;
  const webhooks = webhookIds.map((id) => ({ id, userId: "u1", projectId: "p1" }));
  await Promise.all(
    ids.map((id) => engine.enqueue({ id, userId: "u1", projectId: "p1", kind: "stream.started" }, webhooks)),
  );
}
process.stdout.write("READY\n");
process.on("SIGTERM", async () => {
  await engine.stop();
  await store.close();
  process.stdout.write(`ATTEMPTS ${attempts}\n`);
  process.exit(0);
});
