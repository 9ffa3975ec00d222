import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { aiRunnerSimulatorFactory } from "./runner-simulators.ts";
import type { RunnerSimulator } from "./simulators.ts";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const ENV = { PIPELINE: "text-to-image", MODEL_ID: "stabilityai/sd-turbo", AUTH_TOKEN: "s3cret" };
let running: RunnerSimulator | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(env: Record<string, string>, coldStartSeconds: number) {
  const port = await freePort();
  const lines: string[] = [];
  running = await aiRunnerSimulatorFactory({ coldStartSeconds })({
    host: "127.0.0.1",
    port,
    env,
    log: (l) => lines.push(l),
  });
  return { base: `http://127.0.0.1:${port}`, lines };
}

async function until(ok: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the runner pod's AI runner simulator", () => {
  it("serves the pod's PIPELINE and MODEL_ID on the pod's address, requiring its AUTH_TOKEN", async () => {
    const { base } = await start(ENV, 0);
    await until(async () => (await fetch(`${base}/health`)).ok, 2_000);
    const version = (await (await fetch(`${base}/version`)).json()) as Record<string, string>;
    expect(version).toMatchObject({ pipeline: "text-to-image", model_id: "stabilityai/sd-turbo" });
    const ask = (auth?: string) =>
      fetch(`${base}/text-to-image`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify({ prompt: "a fox", width: 8, height: 8 }),
      });
    expect((await ask()).status).toBe(401);
    const ok = await ask("Bearer s3cret");
    expect(ok.status).toBe(200);
    const { images } = (await ok.json()) as { images: { url: string }[] };
    expect(images[0]!.url).toMatch(/^data:image\/png;base64,/);
  });

  it("keeps its port closed for the cold start, as the runner loads its model before it binds", async () => {
    const { base, lines } = await start(ENV, 0.4);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    expect(lines.join("\n")).toMatch(/loading text-to-image model stabilityai\/sd-turbo/);
    await until(async () => (await fetch(`${base}/health`)).ok, 3_000);
  });

  it("lets the pod's LIVEPEER_SIM_COLD_START_SECONDS win over the factory's default", async () => {
    const { base } = await start({ ...ENV, LIVEPEER_SIM_COLD_START_SECONDS: "0" }, 60);
    await until(async () => (await fetch(`${base}/health`)).ok, 2_000);
  });

  it("refuses a pod without MODEL_ID, naming the variable", async () => {
    await expect(start({ PIPELINE: "text-to-image" }, 0)).rejects.toThrow(/MODEL_ID/);
  });
});
