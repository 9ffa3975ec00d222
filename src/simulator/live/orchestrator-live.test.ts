// An orchestrator simulator with live runners on, over its real service port (TLS, HTTP/1.1 here):
// dynamic registration (bootstrap secret, heartbeat secret, unregister), the O2R channel, static
// runners from -liveRunnerConfig polled at their health_url (a live runner simulator in static
// mode), /discovery, and the node's exits for a missing -orchSecret or a bad config.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeMessage } from "../../node/wire/messages.ts";
import { freePort } from "../../process/ports.ts";
import { startLiveRunnerSimulator } from "../live-runner/live-runner.ts";
import { encodeHeader } from "../segment-protocol.ts";
import { NodeStartError, startNodeSimulator } from "../simulator.ts";
import { getOrchestrator, LOOPBACK_ORCHESTRATOR, loopbackOrchestrator } from "../testing/wire.ts";
import { header, trickleRequest } from "./trickle-client.ts";

const dir = mkdtempSync(path.join(tmpdir(), "live-orch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function orchestrator(...flags: string[]) {
  const port = await freePort();
  const o = await loopbackOrchestrator(
    `-httpAddr=127.0.0.1:${port}`,
    `-serviceAddr=127.0.0.1:${port}`,
    ...flags,
  );
  return { ...o, url: o.sim.urls.http! };
}

const post = (url: string, body: unknown, auth?: string) =>
  trickleRequest(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(auth !== undefined ? { Authorization: auth } : {}) },
    body: Buffer.from(JSON.stringify(body)),
  });
const json = (a: { body: Buffer }) => JSON.parse(a.body.toString("utf8")) as Record<string, unknown>;

/** An orchestrator with the live timings shortened (heartbeat TTL 800 ms, health polled every 100 ms). */
async function quickOrchestrator(...flags: string[]) {
  const port = await freePort();
  const lines: string[] = [];
  const sim = await startNodeSimulator({
    argv: [
      ...LOOPBACK_ORCHESTRATOR,
      `-httpAddr=127.0.0.1:${port}`,
      `-serviceAddr=127.0.0.1:${port}`,
      ...flags,
    ],
    log: (l) => lines.push(l),
    timings: { liveHeartbeatTtlMs: 800, liveHealthIntervalMs: 100 },
  });
  return { sim, lines, url: sim.urls.http! };
}

async function discoveredUrls(url: string): Promise<string[]> {
  const body = JSON.parse((await trickleRequest(`${url}/discovery`)).body.toString()) as {
    runners: { url: string }[];
  }[];
  return body[0]!.runners.map((r) => r.url);
}

describe("live runners on the simulated orchestrator", () => {
  it("registers a runner by heartbeat, hands it its O2R channel, lists it and unregisters it", async () => {
    const o = await orchestrator("-useLiveRunners", "-orchSecret=s3cret");
    try {
      const hb = `${o.url}/runners/heartbeat`;
      const runner = { runner_url: "http://127.0.0.1:9", app: "live-video-to-video/noop", capacity: 2 };
      const refused = await post(hb, runner, "wrong");
      expect(refused.status).toBe(401);
      expect(refused.body.toString()).toBe("invalid registration authorization\n");
      expect((await post(hb, { ...runner, app: " x" }, "s3cret")).body.toString()).toBe(
        "app must be trimmed\n",
      );

      const first = json(await post(hb, runner, "s3cret"));
      expect(first).toMatchObject({
        orchestrator: o.url,
        heartbeat_interval: "5s",
        heartbeat_ttl: "20s",
        session_ids: [],
      });
      const id = first.runner_id as string;
      expect(id).toMatch(/^runner_[a-z2-7]{8}$/);
      const secret = first.heartbeat_secret as string;
      const o2r = first.o2r as Record<string, string>;
      expect(o2r.url).toBe(`${o.url}/ai/trickle/${o2r.channel_name}`);
      expect((await trickleRequest(`${o2r.url}/next`)).status).toBe(200);

      // Later heartbeats use the heartbeat secret and get no new one.
      expect((await post(hb, { ...runner, runner_id: id }, "s3cret")).status).toBe(401);
      const again = json(await post(hb, { ...runner, runner_id: id }, secret));
      expect(again.runner_id).toBe(id);
      expect(again.heartbeat_secret).toBeUndefined();

      const discovery = JSON.parse((await trickleRequest(`${o.url}/discovery`)).body.toString()) as {
        address: string;
        runners: Record<string, unknown>[];
      }[];
      expect(discovery).toEqual([
        {
          address: o.url,
          runners: [
            {
              url: `${o.url}/apps/${id}/session`,
              app: "live-video-to-video/noop",
              mode: "persistent",
              capacity: 2,
              capacity_used: 0,
              capacity_available: 2,
            },
          ],
        },
      ]);
      expect(o.lines.join("\n")).toContain(
        `INFO live runner registered runner_id=${id} app=live-video-to-video/noop`,
      );

      const unregister = `${o.url}/runners/${id}/unregister`;
      expect(
        (await trickleRequest(unregister, { method: "POST", headers: { Authorization: "x" } })).status,
      ).toBe(401);
      expect(
        (await trickleRequest(unregister, { method: "POST", headers: { Authorization: secret } })).status,
      ).toBe(204);
      expect(
        (await trickleRequest(unregister, { method: "POST", headers: { Authorization: secret } })).status,
      ).toBe(404);
      expect((await trickleRequest(`${o2r.url}/next`)).status).toBe(404);
      expect(JSON.parse((await trickleRequest(`${o.url}/discovery`)).body.toString())).toEqual([
        { address: o.url, runners: [] },
      ]);
    } finally {
      await o.sim.stop();
    }
  });

  it("registers static runners from -liveRunnerConfig: a healthy one is listed, an unreachable one is not", async () => {
    const runner = startLiveRunnerSimulator({
      pipeline: "live-video-to-video",
      modelId: "noop",
      port: 0,
      log: () => {},
    });
    const runnerUrl = await runner.listening;
    const deadPort = await freePort();
    const config = path.join(dir, "runners.json");
    writeFileSync(
      config,
      JSON.stringify({
        runners: [
          {
            label: "pass",
            routing: "label",
            runner_url: runnerUrl,
            health_url: "/health",
            app: "live-video-to-video/noop",
            capacity: 1,
          },
          {
            label: "dead",
            runner_url: `http://127.0.0.1:${deadPort}`,
            health_url: "/health",
            app: "live-video-to-video/noop",
          },
        ],
      }),
    );
    const o = await orchestrator(`-liveRunnerConfig=${config}`);
    try {
      const log = o.lines.join("\n");
      expect(log).toContain(`Registered 2 static live runners from ${config}`);
      expect(log).toContain(
        "No -orchSecret configured; dynamic LiveRunner heartbeat registration is disabled",
      );
      const discovery = JSON.parse((await trickleRequest(`${o.url}/discovery`)).body.toString()) as {
        runners: { url: string }[];
      }[];
      expect(discovery[0]!.runners.map((r) => r.url)).toEqual([`${o.url}/apps/pass/session`]);
      const refused = await post(`${o.url}/runners/heartbeat`, { runner_url: runnerUrl, app: "a" }, "");
      expect(refused.status).toBe(404);
      expect(refused.body.toString()).toBe("dynamic live runner registration is disabled\n");
      expect(header(refused.headers, "Content-Type")).toContain("text/plain");
    } finally {
      await o.sim.stop();
      await runner.stop();
    }
  });

  it("reserves and stops sessions on a runner's slots: a full runner answers 503", async () => {
    const o = await orchestrator(
      "-useLiveRunners",
      "-orchSecret=s3cret",
      "-liveRunnerAddr=https://runners.internal:8935",
    );
    try {
      const first = json(
        await post(
          `${o.url}/runners/heartbeat`,
          { runner_url: "http://127.0.0.1:9", app: "live-video-to-video/noop", capacity: 1 },
          "s3cret",
        ),
      );
      expect(first.orchestrator).toBe("https://runners.internal:8935");
      expect((first.o2r as Record<string, string>).internal_url).toMatch(
        /^https:\/\/runners\.internal:8935\/ai\/trickle\/o2r-/,
      );
      const id = first.runner_id as string;
      const reserved = json(await post(`${o.url}/apps/${id}/session`, {}));
      const sid = reserved.session_id as string;
      expect(sid).toMatch(/^session_[a-z2-7]{8}$/);
      expect(reserved).toMatchObject({
        app_url: `${o.url}/apps/${id}/session/${sid}/app`,
        control_url: `${o.url}/apps/${id}/session/${sid}`,
      });
      const full = await post(`${o.url}/apps/${id}/session`, {});
      expect(full.status).toBe(503);
      expect(full.body.toString()).toBe("no capacity available for runner\n");
      expect(o.lines.join("\n")).toContain(
        "HTTP Response Error statusCode=503 err=no capacity available for runner",
      );
      // The O2R channel told the runner; the last message is the reservation.
      const o2r = await trickleRequest(`${(first.o2r as Record<string, string>).url}/-2`);
      expect(JSON.parse(o2r.body.toString())).toMatchObject({ event: "reserved", session: sid });
      expect((await post(`${o.url}/apps/${id}/session/${sid}/stop`, {})).status).toBe(204);
      expect((await post(`${o.url}/apps/${id}/session`, {})).status).toBe(200);
      expect((await post(`${o.url}/apps/runner_nope/session`, {})).status).toBe(404);
    } finally {
      await o.sim.stop();
    }
  });

  it("drops a runner whose heartbeats stop, and keeps one that heartbeats", async () => {
    const o = await quickOrchestrator("-useLiveRunners", "-orchSecret=s3cret");
    const runner = startLiveRunnerSimulator({
      pipeline: "live-video-to-video",
      modelId: "noop",
      port: 0,
      orchUrl: o.url,
      orchSecret: "s3cret",
      runnerId: "kept",
      log: () => {},
    });
    try {
      await runner.registered;
      const silent = json(
        await post(`${o.url}/runners/heartbeat`, { runner_url: "http://127.0.0.1:9", app: "a/b" }, "s3cret"),
      );
      expect(silent.heartbeat_interval).toBe("200ms");
      expect(await discoveredUrls(o.url)).toContain(`${o.url}/apps/${silent.runner_id}/session`);
      await expect
        .poll(() => discoveredUrls(o.url), { timeout: 10_000 })
        .toEqual([`${o.url}/apps/kept/session`]);
      // Hidden at once when the TTL passes; removed (and said) by the next sweep.
      await expect
        .poll(() => o.lines.join("\n"))
        .toContain(
          `INFO live runner removed runner_id=${silent.runner_id} app=a/b reason="heartbeat expired"`,
        );
      expect(runner.snapshot()).toMatchObject({ registered: true, runnerId: "kept" });
    } finally {
      await runner.stop();
      await o.sim.stop();
    }
  });

  it("hides a static runner while its health check fails and lists it again when it passes", async () => {
    const runner = startLiveRunnerSimulator({
      pipeline: "live-video-to-video",
      modelId: "noop",
      port: 0,
      log: () => {},
    });
    const runnerUrl = await runner.listening;
    const config = path.join(dir, "one.json");
    const entry = {
      label: "one",
      routing: "label",
      runner_url: runnerUrl,
      health_url: "/health",
      app: "live-video-to-video/noop",
    };
    writeFileSync(config, JSON.stringify({ runners: [entry] }));
    const o = await quickOrchestrator(`-liveRunnerConfig=${config}`);
    try {
      expect(await discoveredUrls(o.url)).toEqual([`${o.url}/apps/one/session`]);
      runner.apply({ fail: true });
      await expect.poll(() => discoveredUrls(o.url), { timeout: 10_000 }).toEqual([]);
      expect(o.lines.join("\n")).toMatch(
        /INFO static live runner health changed runner_id=one app=live-video-to-video\/noop status=unavailable/,
      );
      runner.apply({ fail: false });
      await expect
        .poll(() => discoveredUrls(o.url), { timeout: 10_000 })
        .toEqual([`${o.url}/apps/one/session`]);
    } finally {
      await o.sim.stop();
      await runner.stop();
    }
  });

  it("answers /payment off chain and refuses bad credentials on /payment and /live-video-to-video", async () => {
    const o = await orchestrator("-useLiveRunners", "-orchSecret=s3cret");
    try {
      await post(
        `${o.url}/runners/heartbeat`,
        { runner_url: "http://127.0.0.1:9", app: "live-video-to-video/noop" },
        "s3cret",
      );
      const info = await getOrchestrator(o.url);
      expect(info.capabilities?.capacities?.[35]).toBe(1);
      const segment = encodeHeader("SegData", { authToken: info.authToken! });
      const paid = await trickleRequest(`${o.url}/payment`, {
        method: "POST",
        headers: { "Livepeer-Payment": "", "Livepeer-Segment": segment },
      });
      expect(paid.status).toBe(200);
      // net.PaymentResult: the orchestrator's info with the sender's own token.
      const result = decodeMessage("TranscodeResult", paid.body);
      expect(result.info?.transcoder).toBe(o.url);
      expect(result.info?.authToken?.sessionId).toBe(info.authToken?.sessionId);
      const forged = encodeHeader("SegData", { authToken: { ...info.authToken!, sessionId: "forged" } });
      const refused = await trickleRequest(`${o.url}/payment`, {
        method: "POST",
        headers: { "Livepeer-Payment": "", "Livepeer-Segment": forged },
      });
      expect([refused.status, refused.body.toString()]).toEqual([403, "invalid auth token\n"]);
      const unpaid = await trickleRequest(`${o.url}/payment`, {
        method: "POST",
        headers: { "Livepeer-Payment": "%%" },
      });
      expect(unpaid.status).toBe(402);

      const start = await trickleRequest(`${o.url}/live-video-to-video`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Livepeer-Payment": "", "Livepeer-Segment": forged },
        body: Buffer.from(JSON.stringify({ model_id: "noop" })),
      });
      expect([start.status, start.body.toString()]).toEqual([403, "invalid auth token\n"]);
      // The refused start gave its runner slot back.
      const after = await getOrchestrator(o.url);
      expect(after.capabilities?.constraints?.PerCapability?.[35]?.models?.noop?.capacityInUse).toBe(0);
      const other = await trickleRequest(`${o.url}/live-video-to-video`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Livepeer-Segment": segment },
        body: Buffer.from(JSON.stringify({ model_id: "other" })),
      });
      expect([other.status, other.body.toString()]).toEqual([503, "insufficient capacity\n"]);
    } finally {
      await o.sim.stop();
    }
  });

  it("exits as the node does without -orchSecret, or with a config it cannot register", async () => {
    const addr = await orchestrator("-useLiveRunners", "-orchSecret=s", "-liveRunnerAddr=ftp://x").catch(
      (e: unknown) => e,
    );
    expect((addr as NodeStartError).message).toBe("invalid -liveRunnerAddr: scheme must be http or https");
    const err = await orchestrator("-useLiveRunners").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeStartError);
    expect((err as NodeStartError).message).toBe("running with -useLiveRunners requires -orchSecret");
    expect((err as NodeStartError).exitCode).toBe(1);
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ runners: [{ runner_url: "http://127.0.0.1:1", app: "x", health_url: "/h" }] }),
    );
    const err2 = await orchestrator(`-liveRunnerConfig=${bad}`).catch((e: unknown) => e);
    expect((err2 as NodeStartError).message).toBe(
      "error registering -liveRunnerConfig: runners[0]: label is required and must be trimmed",
    );
  });
});
