// What `livepeer-operator push-stream` was asked to do: pure parsing of its arguments, so every
// refusal names the option and the fix before anything is dialled.
import { parseArgs } from "node:util";
import { GATEWAY_HTTP_PORT, GATEWAY_RTMP_PORT } from "../schema/gateway.ts";
import { UsageError } from "./command.ts";

/** Where the gateway is: an HTTP base URL, or a Gateway resource whose pod IP the kubeconfig gives. */
export type PushTarget =
  | { url: string }
  | { gateway: string; namespace: string | undefined; kubeconfig: string | undefined };

export type PushTransport = "http" | "rtmp" | "ffmpeg";

export interface PushStreamRequest {
  target: PushTarget;
  transport: PushTransport;
  /** The stream name: /live/<name>/<seq>.ts, rtmp://.../live/<name>, /stream/<name>.m3u8. */
  name: string;
  segments: number;
  realtime: boolean;
  /** The gateway's RTMP port (its host is the HTTP target's). */
  rtmpPort: number;
}

export const DEFAULT_STREAM_NAME = "test-stream";
const MAX_SEGMENTS = 10_000;

const options = {
  url: { type: "string" },
  gateway: { type: "string" },
  namespace: { type: "string", short: "n" },
  kubeconfig: { type: "string" },
  name: { type: "string" },
  segments: { type: "string" },
  realtime: { type: "boolean" },
  rtmp: { type: "boolean" },
  "rtmp-port": { type: "string" },
  ffmpeg: { type: "boolean" },
} as const;

function wholeNumber(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max) {
    throw new UsageError(
      `--${flag} ${text}: give a whole number from 1 to ${max}, for example --${flag} ${fallback}`,
    );
  }
  return n;
}

function httpBase(text: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new UsageError(
      `--url ${text}: not a URL; give the gateway's HTTP port, for example --url http://127.1.0.5:8935`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(
      `--url ${text}: give the gateway's HTTP port (http://host:${GATEWAY_HTTP_PORT}); for RTMP add --rtmp, the host is the same`,
    );
  }
  if (url.pathname !== "/" || url.search) {
    throw new UsageError(`--url ${text}: give only scheme, host and port, for example http://${url.host}`);
  }
  if (!url.port) url.port = String(GATEWAY_HTTP_PORT);
  return url.origin;
}

export function parsePushStreamArgs(args: string[], usage: string): PushStreamRequest {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowNegative: true }>>;
  try {
    parsed = parseArgs({ args, options, allowNegative: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
  const v = parsed.values;
  if ((v.url === undefined) === (v.gateway === undefined)) {
    throw new UsageError(
      `give exactly one of --url (the gateway's HTTP port, e.g. --url http://127.1.0.5:8935) or --gateway NAME [-n NAMESPACE] (a Gateway resource)\n\n${usage}`,
    );
  }
  if (v.url !== undefined && (v.namespace !== undefined || v.kubeconfig !== undefined)) {
    throw new UsageError("--namespace and --kubeconfig go with --gateway NAME, not with --url");
  }
  if (v.gateway !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v.gateway)) {
    throw new UsageError(`--gateway ${v.gateway}: a Gateway's name, as kubectl get gateways shows it`);
  }
  const name = v.name ?? DEFAULT_STREAM_NAME;
  if (!/^[\w.-]+$/.test(name)) {
    throw new UsageError(`--name ${JSON.stringify(name)}: use letters, digits, ".", "_" or "-"`);
  }
  if (v["rtmp-port"] !== undefined && !v.rtmp && !v.ffmpeg) {
    throw new UsageError("--rtmp-port goes with --rtmp or --ffmpeg (HTTP ingest uses the HTTP port)");
  }
  return {
    target:
      v.url !== undefined
        ? { url: httpBase(v.url) }
        : { gateway: v.gateway!, namespace: v.namespace, kubeconfig: v.kubeconfig },
    transport: v.ffmpeg ? "ffmpeg" : v.rtmp ? "rtmp" : "http",
    name,
    segments: wholeNumber("segments", v.segments, 10, MAX_SEGMENTS),
    realtime: v.realtime ?? true,
    rtmpPort: wholeNumber("rtmp-port", v["rtmp-port"], GATEWAY_RTMP_PORT, 65_535),
  };
}
