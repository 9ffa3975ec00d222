// The served OpenAPI document and the server agree under an independent fuzzer: schemathesis
// (PyPI, cached venv made with Debian's python3) runs every check it has over its coverage,
// fuzzing and stateful phases against /api/openapi.json on loopback with an admin token that may
// publish events, and must report no failure. Bounded by examples per operation and a deadline.
// A seeded webhook with one log entry (its target's name never resolves: `.invalid`) lets the log
// entry operations reach past 404. The fuzzer makes up webhook URLs (public IP literals among
// them) and publishes events to them: the API runs with egress loopback-only, so each such
// delivery is refused at connect time and logged as failed, and nothing but loopback is dialled.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSchemathesis, type Schemathesis } from "../../src/dev/python-tools/schemathesis.ts";
import { stopPid } from "../../src/process/pids.ts";
import { call, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";

const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 50);
const SEED = process.env.SCHEMATHESIS_SEED ?? "20261127";
const DEADLINE_MS = 6 * 60_000;

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let tool: Schemathesis;
let workDir: string;
let child: ChildProcess | undefined;
let token: string;
let configFile: string;

beforeAll(async () => {
  [tool] = await Promise.all([
    ensureSchemathesis((line) => console.log(line)),
    (async () => {
      await installWebhookCrd();
      ns = await testNamespace("api-schemathesis");
      // startTestApi's default too; said here because this file's safety rests on it.
      api = await startTestApi(ns.name, { logLevel: "warn", delivery: { egress: "loopback-only" } });
    })(),
  ]);
  workDir = mkdtempSync(path.join(os.tmpdir(), "api-schemathesis-"));
  token = await api.token({ sub: "fuzzer", scope: "admin events:write", ttlSeconds: 3600 });
  const { webhookId, logId } = await seedLogEntry();
  configFile = path.join(workDir, "schemathesis.toml");
  writeFileSync(
    configFile,
    [
      "[[operations]]",
      "include-path-regex = '^/webhook/\\{id\\}/log/\\{logId\\}'",
      `parameters = { "path.id" = "${webhookId}", "path.logId" = "${logId}" }`,
      "",
    ].join("\n"),
  );
});

/**
 * A webhook of the fuzzer's tenant and one entry in its log (a failed attempt), polled for to a
 * deadline; its recorded failure shows the egress restriction in force (the name never looked up).
 */
async function seedLogEntry(): Promise<{ webhookId: string; logId: string }> {
  const created = await call(api.url, "POST", "/webhook", {
    token,
    body: { name: "seed", url: "https://hook.invalid/seed", events: ["stream.started"] },
  });
  expect(created.status, created.text).toBe(200);
  const webhookId = (created.json as { id: string }).id;
  const published = await call(api.url, "POST", "/events", { token, body: { event: "stream.started" } });
  expect(published.status, published.text).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const log = await call(api.url, "GET", `/webhook/${webhookId}/log`, { token });
    expect(log.status, log.text).toBe(200);
    const first = (log.json as Array<{ id: string }>)[0];
    if (first) {
      await expectEgressRefusal(webhookId, deadline);
      return { webhookId, logId: first.id };
    }
    if (Date.now() > deadline)
      throw new Error("the seeded event was never attempted (no log entry within 60 s)");
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function expectEgressRefusal(webhookId: string, deadline: number): Promise<void> {
  for (;;) {
    const out = await kubectl(["get", "webhook", webhookId, "-n", ns.name, "-o", "json"]);
    const error = (JSON.parse(out) as { status?: { lastFailure?: { error?: string } } }).status?.lastFailure
      ?.error;
    if (error !== undefined) {
      expect(error).toBe(
        "refused: hook.invalid, a name other than localhost (none is looked up); this API delivers only to loopback addresses (--delivery-egress loopback-only)",
      );
      return;
    }
    if (Date.now() > deadline)
      throw new Error("the seeded attempt's failure never reached the Webhook's status");
    await new Promise((r) => setTimeout(r, 200));
  }
}

afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) await stopPid(child.pid);
  await api?.close();
  await ns?.remove();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function runSchemathesis(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = tool.command;
    const p = spawn(cmd!, [...pre, ...args], {
      cwd: workDir,
      env: { ...process.env, NO_COLOR: "1", PYTHONUNBUFFERED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = p;
    let output = "";
    p.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    p.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => {
      output += `\n[test] schemathesis still running after ${DEADLINE_MS / 1000} s: stopped`;
      if (p.pid !== undefined) void stopPid(p.pid);
    }, DEADLINE_MS);
    p.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    p.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("the API under schemathesis", () => {
  it(
    "finds no disagreement between /api/openapi.json and the server (--checks all; coverage, fuzzing, stateful)",
    async () => {
      const { code, output } = await runSchemathesis([
        "--config-file",
        configFile,
        "run",
        `${api.url}/openapi.json`,
        "--checks",
        "all",
        "--phases",
        "coverage,fuzzing,stateful",
        "--max-examples",
        String(MAX_EXAMPLES),
        "--seed",
        SEED,
        "--workers",
        "1",
        "--header",
        `Authorization: Bearer ${token}`,
        "--max-response-time",
        "10",
        "--request-timeout",
        "20",
        "--generation-database",
        "none",
        "--no-color",
      ]);
      // Its report names each failure with a curl line to reproduce it; the summary is printed always.
      console.log(code === 0 ? output.slice(output.indexOf("SUMMARY")) : output);
      expect(output).not.toMatch(/still running after/);
      for (const phase of ["Coverage", "Fuzzing", "Stateful"]) {
        expect(output, `the ${phase} phase ran`).toMatch(new RegExp(`${phase} \\(in [0-9.]+s\\)`));
      }
      expect(code, "schemathesis reported failures (its report is printed above)").toBe(0);
      expect(output).toMatch(/Test cases:\s+\d+ generated, \d+ passed/);
    },
    DEADLINE_MS + 60_000,
  );
});
