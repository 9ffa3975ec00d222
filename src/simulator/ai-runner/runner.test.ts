import { afterEach, describe, expect, it } from "vitest";
import { classifyLines } from "../../node/diagnosis/index.ts";
import { readSolidPng } from "./png.ts";
import { type AiRunnerOptions, type AiRunnerSimulator, startAiRunnerSimulator } from "./runner.ts";

const running: AiRunnerSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

function start(options: Partial<AiRunnerOptions> = {}) {
  const lines: string[] = [];
  const runner = startAiRunnerSimulator({
    pipeline: "text-to-image",
    modelId: "stabilityai/sd-turbo",
    port: 0,
    log: (l) => lines.push(l),
    ...options,
  });
  running.push(runner);
  return { runner, lines };
}

const imageRequest = (url: string, body: unknown, token?: string) =>
  fetch(`${url}/text-to-image`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe("the simulated AI runner", () => {
  it("answers /health only after its cold start (nothing listens while the model loads)", async () => {
    const { runner, lines } = start({ coldStartMs: 400 });
    const t0 = Date.now();
    expect(runner.snapshot().loaded).toBe(false);
    const url = await runner.listening;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "OK" });
    expect(health.headers.get("x-livepeer-simulated")).toBe("true");
    expect(lines.some((l) => /^INFO: {5}Uvicorn running on http:\/\/127\.0\.0\.1:\d+/.test(l))).toBe(true);
  });

  it("takes inferenceMs per image", async () => {
    const { runner } = start({ inferenceMs: 150 });
    const url = await runner.listening;
    const t0 = performance.now();
    const res = await imageRequest(url, { prompt: "a cat", width: 8, height: 8, num_images_per_prompt: 2 });
    expect(res.status).toBe(200);
    // A lower bound only: two images, each at least inferenceMs (timers may fire a little early).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * 150 - 5);
    expect(runner.snapshot().images).toBe(2);
  });

  it("returns a PNG of the asked size as a data URL for text-to-image", async () => {
    const { runner } = start();
    const url = await runner.listening;
    const res = await imageRequest(url, {
      prompt: "a cat",
      model_id: "stabilityai/sd-turbo",
      width: 64,
      height: 32,
      seed: 7,
      num_images_per_prompt: 2,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { images: { url: string; seed: number; nsfw: boolean }[] };
    expect(body.images.map((i) => [i.seed, i.nsfw])).toEqual([
      [7, false],
      [8, false],
    ]);
    const png = Buffer.from(body.images[0]!.url.replace(/^data:image\/png;base64,/, ""), "base64");
    expect(readSolidPng(png)).toMatchObject({ width: 64, height: 32 });
  });

  it("refuses a request without the right bearer token (401, the runner's text)", async () => {
    const { runner } = start({ token: "s3cret" });
    const url = await runner.listening;
    for (const token of [undefined, "wrong"]) {
      const res = await imageRequest(url, { prompt: "x" }, token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(await res.json()).toEqual({ detail: { msg: "Invalid bearer token." } });
    }
    expect((await imageRequest(url, { prompt: "x", width: 8, height: 8 }, "s3cret")).status).toBe(200);
  });

  it("checks the prompt and the model as the runner does", async () => {
    const { runner } = start();
    const url = await runner.listening;
    const missing = await imageRequest(url, { model_id: "stabilityai/sd-turbo" });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ detail: [{ type: "missing", loc: ["body", "prompt"] }] });
    const empty = await imageRequest(url, { prompt: "" });
    expect(await empty.json()).toEqual({ detail: { msg: "Prompt must be provided." } });
    const other = await imageRequest(url, { prompt: "x", model_id: "ByteDance/SDXL-Lightning" });
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({
      detail: {
        msg: "pipeline configured with stabilityai/sd-turbo but called with ByteDance/SDXL-Lightning.",
      },
    });
  });

  it("runs out of GPU memory after --oom-after images: logs the CUDA line the doctor knows, answers 500", async () => {
    const { runner, lines } = start({ oomAfter: 1 });
    const url = await runner.listening;
    expect((await imageRequest(url, { prompt: "x", width: 8, height: 8 })).status).toBe(200);
    const failed = await imageRequest(url, { prompt: "x", width: 8, height: 8 });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({
      detail: { msg: "Out of memory error. Try reducing output image resolution." },
    });
    const oom = lines.find((l) => l.includes("CUDA out of memory"));
    expect(oom).toMatch(
      /^timestamp=\S+ \S+ level=ERROR location=text_to_image\.py:\d+:text_to_image .*message=TextToImage pipeline error: CUDA out of memory\. Tried to allocate/,
    );
    expect((await classifyLines(lines)).findings.map((f) => f.id)).toContain("GpuOutOfMemory");
    const stats = (await (await fetch(`${url}/hardware/stats`)).json()) as {
      gpu_stats: Record<string, { memory_total: number; memory_free: number }>;
    };
    expect(stats.gpu_stats["0"]!.memory_free / stats.gpu_stats["0"]!.memory_total).toBeLessThan(0.02);
  });

  it("is steered by POST /__sim/actions: out of memory on demand, GPU memory in /hardware/stats", async () => {
    const { runner } = start({ gpus: 2, gpuMemoryTotal: 80 * 1024 ** 3 });
    const url = await runner.listening;
    const steer = (body: unknown) =>
      fetch(`${url}/__sim/actions`, { method: "POST", body: JSON.stringify(body) });
    expect((await steer({ gpuMemoryUsed: 0.9 })).status).toBe(200);
    const stats = (await (await fetch(`${url}/hardware/stats`)).json()) as {
      pipeline: string;
      model_id: string;
      gpu_stats: Record<string, { memory_total: number; memory_free: number; utilization_memory: number }>;
    };
    expect(stats.pipeline).toBe("text-to-image");
    expect(stats.model_id).toBe("stabilityai/sd-turbo");
    expect(Object.keys(stats.gpu_stats)).toEqual(["0", "1"]);
    expect(stats.gpu_stats["1"]).toMatchObject({ memory_total: 80 * 1024 ** 3, utilization_memory: 90 });
    expect((await steer({ oom: true })).status).toBe(200);
    expect((await imageRequest(url, { prompt: "x", width: 8, height: 8 })).status).toBe(500);
    expect((await steer({ bogus: 1 })).status).toBe(400);
  });
});
