// Stream starts agreed by every API replica through the delivery store: a repeated auth call to
// another replica, or to one restarted, is the same start (so the same stream.started id); a
// stream ended on one replica starts anew on any; a store that fails or stops answering leaves the
// decision to the replica's own memory within the budget, said once in the log.
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { OpenStreams } from "../../src/api/node-hooks/open-streams.ts";
import { StreamStarts } from "../../src/api/node-hooks/stream-starts.ts";
import { createLogger } from "../../src/process/log.ts";
import { storeFixture } from "./support/delivery-stores.ts";

const fixture = storeFixture();
afterAll(() => fixture.cleanup());

const GW = "0b7f3a0e-3c1e-4f3a-9a57-5d2d1f0c8e11";

describe("stream starts shared by API replicas", () => {
  it("gives a repeated auth call on another replica, or after a restart, the first start; an end anywhere makes the next call a new start", async () => {
    const config = await fixture.newConfig("sqlite");
    const [storeA, storeB] = [await fixture.open(config), await fixture.open(config)];
    // Agreement is what this test checks, not the budget (the next one does): a store's answer
    // slowed past 250 ms by a loaded machine must not turn into a replica deciding alone here.
    const budgetMs = 30_000;
    const replicaA = new StreamStarts({ local: new OpenStreams(), shared: storeA, budgetMs });
    // Replica B's end is fire-and-forget: the test keeps the store's answer to wait for it.
    const ends: Promise<void>[] = [];
    const sharedB = new Proxy(storeB, {
      get(target, name) {
        if (name === "endStream")
          return (k: string) => {
            const done = target.endStream(k);
            ends.push(done);
            return done;
          };
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const replicaB = new StreamStarts({ local: new OpenStreams(), shared: sharedB, budgetMs });
    expect(await replicaA.start(GW, "cam1", 1_000)).toBe(1_000);
    expect(await replicaB.start(GW, "cam1", 1_500)).toBe(1_000);
    const restartedA = new StreamStarts({ local: new OpenStreams(), shared: storeA, budgetMs });
    expect(await restartedA.start(GW, "cam1", 2_000)).toBe(1_000);
    // The end report reached replica B; replica A's memory still holds the old start.
    replicaB.end(GW, "cam1");
    expect(ends).toHaveLength(1);
    await Promise.all(ends);
    expect(await replicaA.start(GW, "cam1", 3_000)).toBe(3_000);
    expect(await replicaB.start(GW, "cam1", 3_500)).toBe(3_000);
  });

  it("decides alone within its budget when the store stops answering (PostgreSQL stopped), and says so once", async () => {
    const config = await fixture.newConfig("postgres");
    if (config.backend !== "postgres") throw new Error("expected a PostgreSQL config");
    const store = await fixture.open(config);
    const lines: string[] = [];
    const starts = new StreamStarts({
      local: new OpenStreams(),
      shared: store,
      budgetMs: 200,
      log: createLogger("api", { write: (l) => lines.push(l) }),
    });
    expect(await starts.start(GW, "cam2", 10_000)).toBe(10_000);
    // The server and its backends frozen: connections stay open, nothing answers.
    const frozen = serverProcesses(await postmasterPid(config.connectionString));
    for (const pid of frozen) signal(pid, "SIGSTOP");
    try {
      const t0 = performance.now();
      // This replica's memory: the stream is open since 10,000.
      expect(await starts.start(GW, "cam2", 11_000)).toBe(10_000);
      expect(await starts.start(GW, "cam3", 11_000)).toBe(11_000);
      expect(performance.now() - t0).toBeLessThan(1_500);
    } finally {
      for (const pid of [...frozen].reverse()) signal(pid, "SIGCONT");
    }
    expect(lines.filter((l) => l.includes("stream starts are not shared"))).toHaveLength(1);
    expect(lines[0]).toMatch(/WARN .*error="no answer within 200 ms"/);
  });

  it("decides alone when the store fails (closed)", async () => {
    const store = await fixture.open(await fixture.newConfig("sqlite"));
    const starts = new StreamStarts({ local: new OpenStreams(), shared: store });
    await store.close();
    expect(await starts.start(GW, "cam4", 5_000)).toBe(5_000);
    expect(await starts.start(GW, "cam4", 6_000)).toBe(5_000);
  });
});

/** The PostgreSQL server's postmaster pid (the backend's parent), read through the server itself. */
async function postmasterPid(connectionString: string): Promise<number> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    const { rows } = await c.query("SELECT pg_backend_pid() AS pid");
    return parentOf(Number(rows[0].pid));
  } finally {
    await c.end();
  }
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** The postmaster and every process it started. */
function serverProcesses(postmaster: number): number[] {
  const children = readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        return parentOf(pid) === postmaster;
      } catch {
        return false;
      }
    });
  return [postmaster, ...children];
}

/** Sends `sig`; a process that ended meanwhile (a backend or worker the woken postmaster reaped) is skipped. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}
