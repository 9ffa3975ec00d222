// The chain watch's pacing and wake-ups, on targets whose check ends without any RPC (a -ethUrl
// that is not an RPC URL is judged at once): the reads themselves are test/integration's.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChainReads, type NodeChainTarget } from "../../node/chain/index.ts";
import { ChainWatch } from "./chain-watch.ts";

const target = (ethUrl: string): NodeChainTarget => ({
  role: "gateway",
  network: "devnet",
  ethUrl,
  address: "0xBd49cD60629fd6585FB4c1cA3Fc2529241207B5e",
});

afterEach(() => {
  vi.useRealTimers();
});

describe("ChainWatch", () => {
  it("answers at once, checks in the background, wakes the resource on news, one check a period", async () => {
    vi.useFakeTimers();
    const woken: string[] = [];
    const watch = new ChainWatch({ reads: new ChainReads(), wake: (k) => woken.push(k), periodMs: 10_000 });
    const t = target("ftp://chain.example.com");
    expect(watch.observe("ns/g", t)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(["ns/g"]);
    const report = watch.observe("ns/g", t);
    expect(report?.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["ChainHealthy", "False", "RPCUnreachable"],
      ["Funded", "Unknown", "ChainNotRead"],
    ]);
    // Reconciles within the period ask no new check; the period's check finds nothing new.
    for (let i = 0; i < 5; i++) watch.observe("ns/g", t);
    expect(watch.stats().checks).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(watch.stats().checks).toBe(2);
    expect(woken).toEqual(["ns/g"]);
    watch.stop();
  });

  it("a new target starts over (its first check is news); a forgotten resource is not checked again", async () => {
    vi.useFakeTimers();
    const woken: string[] = [];
    const watch = new ChainWatch({ reads: new ChainReads(), wake: (k) => woken.push(k), periodMs: 10_000 });
    watch.observe("ns/g", target("ftp://a.example.com"));
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.observe("ns/g", target("ftp://b.example.com"))).toBeUndefined();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(["ns/g", "ns/g"]);
    expect(watch.observe("ns/g", target("ftp://b.example.com"))?.conditions[0]?.message).toContain(
      "b.example.com",
    );
    watch.forget("ns/g");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(watch.stats()).toEqual({ checks: 2, watched: 0 });
  });

  it("stops checking a resource nobody observes any more (deleted while another replica led)", async () => {
    vi.useFakeTimers();
    const watch = new ChainWatch({
      reads: new ChainReads(),
      wake: () => {},
      periodMs: 10_000,
      idleMs: 25_000,
    });
    watch.observe("ns/g", target("ftp://a.example.com"));
    await vi.advanceTimersByTimeAsync(60_000);
    // Checked at 0, 10, 20 and 30 s; by then unobserved for over 25 s, so no check follows.
    expect(watch.stats()).toEqual({ checks: 4, watched: 0 });
  });
});
