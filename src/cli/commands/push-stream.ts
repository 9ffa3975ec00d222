// `livepeer-operator push-stream`: pushes a test stream into a gateway - HTTP ingest (our own
// pusher, no ffmpeg), RTMP (our own publisher) or ffmpeg over RTMP - prints what the gateway made
// of each segment and the HLS playlist to play, and exits 1 when nothing was transcoded.
import { spawn } from "node:child_process";
import {
  errorMessage,
  isNotFound,
  KubeClient,
  type KubeObject,
  loadKubeConfig,
  Pods,
} from "../../kube/index.ts";
import { pushStream } from "../../media/push-stream.ts";
import { publishRtmp } from "../../media/rtmp/publisher.ts";
import { DEFAULT_PORTS } from "../../node/config/addresses.ts";
import { GATEWAY_HTTP_PORT } from "../../schema/gateway.ts";
import { Gateways } from "../../schema/resources.ts";
import { type Command, UsageError } from "../command.ts";
import { type PushStreamRequest, type PushTarget, parsePushStreamArgs } from "../push-stream-args.ts";
import { nothingTranscoded, type SegmentAnswer, segmentLine, transcoded } from "../push-stream-report.ts";

const usage = `Usage: livepeer-operator push-stream (--url URL | --gateway NAME [-n NAMESPACE]) [options]

Pushes a synthetic test stream (an H.264 test pattern, 2 s segments) into a Livepeer gateway,
prints the gateway's answer to each segment and, at the end, the stream's HLS playlist URL.

Where the gateway is (one of):
  --url URL            the gateway's HTTP port (HTTP ingest and HLS), e.g. http://127.1.0.5:${GATEWAY_HTTP_PORT};
                       elsewhere: kubectl port-forward svc/NAME ${GATEWAY_HTTP_PORT} 1935, then --url localhost
  --gateway NAME       a Gateway resource: dials its pod NAME-0's IP, found through the
                       kubeconfig (reachable in the embedded default, whose pods have loopback IPs);
                       first waits (up to 75 s) until the node's own /status lists an orchestrator:
                       the node asks for its list once a minute
  -n, --namespace NS   the Gateway's namespace (default: the kubeconfig context's, else default)
  --kubeconfig FILE    default: KUBECONFIG, then ~/.kube/config

How:
  (default)            HTTP ingest: PUT /live/NAME/SEQ.ts, each answered once transcoded
  --rtmp               publish to rtmp://HOST:1935/live/NAME (same host); segments are
                       reported as they appear in the HLS playlist
  --ffmpeg             ffmpeg (on PATH) encodes a test pattern with libx264 and publishes it
                       over RTMP, as an encoder would
  --rtmp-port PORT     the gateway's RTMP port (default 1935)

  --name NAME          stream name (default test-stream)
  --segments N         how many 2 s segments (default 10)
  --no-realtime        push as fast as the gateway answers, not at the stream's pace

The playlist is served while the stream is live: an HTTP-pushed stream ends 60-120 s after its
last segment, an RTMP stream when publishing stops.

Exit status: 0 when at least one segment was transcoded, 1 when none was (saying why, in the
gateway's words), 2 for usage errors.

Examples:
  livepeer-operator push-stream --gateway main --segments 5
  curl http://<pod IP>:${GATEWAY_HTTP_PORT}/stream/test-stream.m3u8`;

/** The node's CLI port (its /status), never exposed by the Gateway's Service. */
const GATEWAY_CLI_PORT = DEFAULT_PORTS.gatewayCli;
/** A little over the node's one-minute discovery refresh. */
const NODE_REFRESH_WAIT_MS = 75_000;

type PodView = KubeObject & { status?: { podIP?: string; phase?: string } };

/** The gateway's HTTP base URL: given, or its pod's IP read through the kubeconfig. */
async function gatewayBase(target: PushTarget): Promise<{ base: string; podIP?: string }> {
  if ("url" in target) return { base: target.url };
  let loaded: ReturnType<typeof loadKubeConfig>;
  try {
    loaded = loadKubeConfig({ kubeconfig: target.kubeconfig });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { kc } = loaded;
  const namespace = target.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? "default";
  const client = new KubeClient(kc);
  try {
    await client.get(Gateways, namespace, target.gateway).catch((err: unknown) => {
      if (isNotFound(err)) {
        throw new UsageError(
          `no Gateway ${target.gateway} in namespace ${namespace}: kubectl get gateways -A lists them (-n NAMESPACE picks one)`,
        );
      }
      throw err;
    });
    const podName = `${target.gateway}-0`;
    const pod = await client.get<PodView>(Pods, namespace, podName).catch((err: unknown) => {
      if (isNotFound(err)) {
        throw new UsageError(
          `Gateway ${namespace}/${target.gateway} has no pod ${podName} yet: kubectl wait --for=condition=Ready gateway/${target.gateway} -n ${namespace}`,
          1,
        );
      }
      throw err;
    });
    const ip = pod.status?.podIP;
    if (!ip) {
      throw new UsageError(
        `pod ${namespace}/${podName} has no IP yet (phase ${pod.status?.phase ?? "unknown"}): kubectl wait --for=condition=Ready gateway/${target.gateway} -n ${namespace}`,
        1,
      );
    }
    return { base: `http://${ip.includes(":") ? `[${ip}]` : ip}:${GATEWAY_HTTP_PORT}`, podIP: ip };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `cannot read Gateway ${namespace}/${target.gateway} and its pod through the kubeconfig (${loaded.from}): ${errorMessage(err)}`,
      1,
    );
  } finally {
    await kc.close();
  }
}

/** The orchestrators the gateway node itself knows (its /status on the CLI port); undefined when unreadable. */
async function nodePool(podIP: string): Promise<string[] | undefined> {
  const host = podIP.includes(":") ? `[${podIP}]` : podIP;
  try {
    const res = await fetch(`http://${host}:${GATEWAY_CLI_PORT}/status`, {
      signal: AbortSignal.timeout(2_000),
    });
    const status = (await res.json()) as { OrchestratorPool?: unknown };
    return Array.isArray(status.OrchestratorPool) ? status.OrchestratorPool.map(String) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The node asks the operator's discovery hook at most once a minute, so a gateway that asked
 * before its orchestrators were Ready answers "No sessions available" for up to a minute: wait
 * for its own list (read on the pod's CLI port, reachable in the embedded default) rather than
 * push into that.
 */
async function untilNodeHasOrchestrators(podIP: string): Promise<void> {
  const deadline = Date.now() + NODE_REFRESH_WAIT_MS;
  let said = false;
  for (;;) {
    const pool = await nodePool(podIP);
    if (pool === undefined || pool.length > 0) return;
    if (Date.now() > deadline) {
      process.stdout.write("the gateway node still knows no orchestrator; pushing anyway\n");
      return;
    }
    if (!said) {
      process.stdout.write(
        "the gateway node knows no orchestrator yet (it asks the operator's discovery hook once a minute): waiting\n",
      );
      said = true;
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

function unreachable(base: string, err: unknown): UsageError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (err as Error).message;
  return new UsageError(
    `cannot reach the gateway at ${base} (${why}): is it running and is this its HTTP port? kubectl get gateways; with a cluster elsewhere, kubectl port-forward svc/NAME ${GATEWAY_HTTP_PORT} 1935`,
    1,
  );
}

async function pushHttp(req: PushStreamRequest, base: string): Promise<SegmentAnswer[]> {
  const answers: SegmentAnswer[] = [];
  try {
    await pushStream({
      gateway: base,
      name: req.name,
      segments: req.segments,
      realtime: req.realtime,
      onSegment: (s) => {
        answers.push(s);
        process.stdout.write(`${segmentLine(s)}\n`);
      },
    });
  } catch (err) {
    throw unreachable(base, err);
  }
  return answers;
}

/**
 * Watches the stream's HLS playlists while it is published over RTMP: a segment counts as
 * transcoded once a rendition's media playlist names it (RTMP has no per-segment answer).
 */
function watchPlaylists(base: string, name: string): { stop(): Promise<SegmentAnswer[]> } {
  const seen = new Map<number, Set<string>>();
  const answers: SegmentAnswer[] = [];
  let running = true;
  const look = async () => {
    const master = await fetch(`${base}/stream/${name}.m3u8`, { signal: AbortSignal.timeout(2_000) });
    if (master.status !== 200) return void (await master.body?.cancel());
    const renditions = (await master.text()).split("\n").filter((l) => l.endsWith(".m3u8"));
    for (const rel of renditions) {
      const rendition = rel.replace(/^.*\//, "").replace(/\.m3u8$/, "");
      const media = await fetch(`${base}/stream/${rel}`, { signal: AbortSignal.timeout(2_000) });
      if (media.status !== 200) continue;
      for (const uri of (await media.text()).split("\n").filter((l) => l.endsWith(".ts"))) {
        const seq = Number(uri.replace(/^.*\//, "").replace(/\.ts$/, ""));
        if (!seen.has(seq)) seen.set(seq, new Set());
        seen.get(seq)!.add(rendition);
      }
    }
    for (const [seq, names] of [...seen].sort((a, b) => a[0] - b[0])) {
      if (answers.some((a) => a.seq === seq)) continue;
      const answer = { seq, renditions: [...names] };
      answers.push(answer);
      process.stdout.write(`${segmentLine(answer)}\n`);
    }
  };
  const loop = (async () => {
    while (running) {
      await look().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
    }
    await look().catch(() => undefined);
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return answers;
    },
  };
}

function runFfmpeg(req: PushStreamRequest, rtmpUrl: string): Promise<void> {
  const fps = 30;
  const args = [
    "-hide_banner",
    "-loglevel",
    "error",
    ...(req.realtime ? ["-re"] : []),
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=320x240:rate=${fps}`,
    "-t",
    String(req.segments * 2),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-tune",
    "zerolatency",
    "-pix_fmt",
    "yuv420p",
    "-g",
    String(fps * 2),
    "-keyint_min",
    String(fps * 2),
    "-f",
    "flv",
    rtmpUrl,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("ffmpeg", args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "ENOENT"
          ? new UsageError(
              "ffmpeg is not on PATH: install it (Debian: apt-get install ffmpeg), or leave out --ffmpeg to use the built-in pusher",
            )
          : err,
      ),
    );
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`ffmpeg exited with ${code ?? signal}`)),
    );
  });
}

async function pushRtmp(req: PushStreamRequest, base: string): Promise<SegmentAnswer[]> {
  const host = new URL(base).host.replace(/:\d+$/, "");
  const rtmpUrl = `rtmp://${host}:${req.rtmpPort}/live/${req.name}`;
  process.stdout.write(`publishing ${rtmpUrl}${req.transport === "ffmpeg" ? " with ffmpeg" : ""}\n`);
  const watch = watchPlaylists(base, req.name);
  let failure: Error | undefined;
  try {
    if (req.transport === "ffmpeg") await runFfmpeg(req, rtmpUrl);
    else await publishRtmp({ url: rtmpUrl, segments: req.segments, realtime: req.realtime });
  } catch (err) {
    failure = err as Error;
  }
  const answers = await watch.stop();
  if (failure instanceof UsageError) throw failure;
  if (failure) {
    process.stdout.write(`publishing stopped: ${failure.message}\n`);
    if (transcoded(answers) === 0) {
      throw new UsageError(`no segment was transcoded: publishing ${rtmpUrl} failed: ${failure.message}`, 1);
    }
  }
  return answers;
}

export const command: Command = {
  name: "push-stream",
  summary: "Push a test stream into a gateway (HTTP ingest, RTMP or ffmpeg) and print its HLS playlist.",
  usage,
  async run(args) {
    const req = parsePushStreamArgs(args, usage);
    const { base, podIP } = await gatewayBase(req.target);
    if (podIP) await untilNodeHasOrchestrators(podIP);
    const answers = req.transport === "http" ? await pushHttp(req, base) : await pushRtmp(req, base);
    const playlist = `${base}/stream/${req.name}.m3u8`;
    const why = nothingTranscoded(answers, playlist);
    if (why) {
      process.stderr.write(`livepeer-operator push-stream: ${why}\n`);
      return 1;
    }
    process.stdout.write(
      req.transport === "http"
        ? `${transcoded(answers)} of ${answers.length} segments transcoded\nHLS playlist: ${playlist} (served until 60-120 s after the last segment)\n`
        : `${transcoded(answers)} segments seen in the HLS playlist while the stream was live (the last one is cut as publishing stops and the stream ends)\nHLS playlist: ${playlist} (served while the stream is live)\n`,
    );
    return 0;
  },
};
