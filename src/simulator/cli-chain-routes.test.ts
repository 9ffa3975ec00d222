// The duty endpoints' answers that need no chain: what the node says to an off-chain call, a
// missing or bad form field, and a chain it cannot reach (the devnet integration test covers
// the transactions themselves).
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeSimulator, startNodeSimulator } from "./simulator.ts";

const running: NodeSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function start(argv: string[]) {
  const sim = await startNodeSimulator({ argv, log: () => {} });
  running.push(sim);
  return sim;
}

const post = (url: string, fields: Record<string, string> = {}) =>
  fetch(url, { method: "POST", body: new URLSearchParams(fields) }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

const GATEWAY = ["-gateway", "-cliAddr=127.0.0.1:0", "-httpAddr=127.0.0.1:0", "-rtmpAddr=127.0.0.1:0"];

describe("the CLI port's duty endpoints", () => {
  it("an off-chain node has no Ethereum client: /reward and /fundDepositAndReserve answer 500", async () => {
    const sim = await start(GATEWAY);
    expect(await post(`${sim.urls.cli}/reward`)).toEqual({ status: 500, text: "missing ETH client\n" });
    expect(
      await post(`${sim.urls.cli}/fundDepositAndReserve`, { depositAmount: "1", reserveAmount: "1" }),
    ).toEqual({ status: 500, text: "missing ETH client\n" });
  });

  it("/fundDepositAndReserve wants both amounts as integers of wei, as the node checks them", async () => {
    const sim = await start(GATEWAY);
    expect(await post(`${sim.urls.cli}/fundDepositAndReserve`, { depositAmount: "1" })).toEqual({
      status: 400,
      text: "missing form param: reserveAmount\n",
    });
  });

  it("an on-chain node whose chain does not answer says so in its 500, naming the URL", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const sim = await start([
      ...GATEWAY,
      "-network=devnet",
      `-ethUrl=${url}`,
      "-ethController=0x77A0865438f2EfD65667362D4a8937537CA7a5EF",
      `-ethKeystorePath=${tmpdir()}`,
      "-ethPassword=secret",
    ]);
    const bad = await post(`${sim.urls.cli}/fundDepositAndReserve`, {
      depositAmount: "1e18",
      reserveAmount: "1",
    });
    expect(bad).toEqual({ status: 400, text: "invalid depositAmount: invalid big int 1e18\n" });
    const r = await post(`${sim.urls.cli}/reward`);
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/^Error calling reward: .*127\.0\.0\.1/);
  });
});
