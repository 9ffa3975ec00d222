// A minimal stand-in for the AI runner simulator (the ai-sim branch builds the real one in
// src/node/simulator): the ai-runner's /health (LOADING until the test says the model is loaded),
// /hardware/stats, and a bearer-token check on POST /text-to-image. Tests steer each runner by its
// model id: finish its cold start, make it log CUDA running out of memory.
import { createServer, type Server } from "node:http";
import type { RunnerSimulator, RunnerSimulatorFactory } from "../../../src/dev/simulators.ts";

interface Standin {
  modelId: string;
  host: string;
  loaded: boolean;
  /** Fraction of GPU memory in use, as /hardware/stats reports it. */
  memoryUsed: number;
  log: (line: string) => void;
}

export interface RunnerStandins {
  factory: RunnerSimulatorFactory;
  /** The model's runners answer OK from now on (their cold start is over). */
  finishLoading(modelId: string): void;
  /** The model's runners log the AI runner's CUDA out-of-memory line. */
  outOfMemory(modelId: string): void;
  /** Runners started, by model id. */
  started(modelId: string): number;
  /** The model's runners report this fraction of their GPU's memory in use. */
  memoryUsed(modelId: string, fraction: number): void;
}

// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

export function runnerStandins(): RunnerStandins {
  const all: Standin[] = [];
  const loaded = new Set<string>();
  const factory: RunnerSimulatorFactory = async ({ host, port, env, log }) => {
    const s: Standin = {
      modelId: env.MODEL_ID ?? "",
      host,
      loaded: loaded.has(env.MODEL_ID ?? ""),
      memoryUsed: 0.25,
      log,
    };
    all.push(s);
    const server: Server = createServer((req, res) => {
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method === "GET" && req.url === "/health")
        return json(200, { status: s.loaded ? "OK" : "LOADING" });
      if (req.method === "GET" && req.url === "/hardware/stats") {
        return json(200, {
          pipeline: env.PIPELINE,
          model_id: env.MODEL_ID,
          gpu_stats: {
            "0": {
              id: "GPU-0",
              name: "Standin",
              memory_total: 80e9,
              memory_free: Math.round(80e9 * (1 - s.memoryUsed)),
            },
          },
        });
      }
      if (req.method === "POST" && req.url === "/text-to-image") {
        if (req.headers.authorization !== `Bearer ${env.AUTH_TOKEN}`)
          return json(401, { detail: "bad token" });
        res.writeHead(200, { "content-type": "image/png" });
        return res.end(PNG);
      }
      json(404, { detail: "Not Found" });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    log(`INFO:     Uvicorn running on http://${host}:${port} (loading ${env.MODEL_ID})`);
    const sim: RunnerSimulator = {
      stop: () =>
        new Promise<void>((resolve) => {
          const i = all.indexOf(s);
          if (i >= 0) all.splice(i, 1);
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
    return sim;
  };
  return {
    factory,
    finishLoading(modelId) {
      loaded.add(modelId);
      for (const s of all.filter((x) => x.modelId === modelId)) s.loaded = true;
    },
    outOfMemory(modelId) {
      for (const s of all.filter((x) => x.modelId === modelId)) {
        s.log(
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.",
        );
      }
    },
    started: (modelId) => all.filter((x) => x.modelId === modelId).length,
    memoryUsed(modelId, fraction) {
      for (const s of all.filter((x) => x.modelId === modelId)) s.memoryUsed = fraction;
    },
  };
}
