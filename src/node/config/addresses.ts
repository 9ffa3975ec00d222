// Where a node listens, worked out as the real node does (starter.go defaultAddr): an empty flag
// gets 127.0.0.1 and the role's port, ":port" gets the default host, "host" gets the default
// port. The orchestrator's HTTP listener defaults to every interface on the -serviceAddr port.
import type { FlagValues } from "./flag-table.ts";
import { flagText } from "./read.ts";
import type { NodeRole } from "./roles.ts";

export const DEFAULT_PORTS = {
  gatewayCli: 5935,
  /** The real node's gateway HTTP default; the spec's examples use 8935: render -httpAddr always. */
  gatewayHttp: 9935,
  rtmp: 1935,
  orchestratorCli: 7935,
  orchestratorService: 8935,
  transcoderCli: 6935,
  aiWorkerCli: 4935,
  redeemerCli: 7935,
} as const;

export interface HostPort {
  /** "" = every interface. */
  host: string;
  port: number;
}

export interface NodeAddresses {
  cli: HostPort;
  http?: HostPort;
  /** The orchestrator's service port speaks TLS (self-signed) unless -httpAddr starts with http://. */
  httpScheme?: "http" | "https";
  rtmp?: HostPort;
}

const LOOPBACK = "127.0.0.1";

export function nodeAddresses(values: FlagValues, role: NodeRole): NodeAddresses {
  const cliAddr = flagText(values, "cliAddr") ?? "";
  const { addr: httpAddr, scheme } = splitScheme(flagText(values, "httpAddr") ?? "");
  switch (role) {
    case "gateway":
      return {
        cli: defaultAddr(cliAddr, LOOPBACK, DEFAULT_PORTS.gatewayCli),
        http: defaultAddr(httpAddr, LOOPBACK, DEFAULT_PORTS.gatewayHttp),
        httpScheme: "http",
        rtmp: defaultAddr(flagText(values, "rtmpAddr") ?? "", LOOPBACK, DEFAULT_PORTS.rtmp),
      };
    case "orchestrator":
      return {
        cli: defaultAddr(cliAddr, LOOPBACK, DEFAULT_PORTS.orchestratorCli),
        http: defaultAddr(httpAddr, "", servicePort(values) ?? DEFAULT_PORTS.orchestratorService),
        httpScheme: scheme ?? "https",
      };
    case "redeemer":
      return {
        cli: defaultAddr(cliAddr, LOOPBACK, DEFAULT_PORTS.redeemerCli),
        http: defaultAddr(httpAddr, LOOPBACK, DEFAULT_PORTS.orchestratorService),
      };
    case "transcoder":
      return { cli: defaultAddr(cliAddr, LOOPBACK, DEFAULT_PORTS.transcoderCli) };
    case "aiWorker":
      return { cli: defaultAddr(cliAddr, LOOPBACK, DEFAULT_PORTS.aiWorkerCli) };
  }
}

/** The node accepts -httpAddr as host:port or as http://host:port (plain) / https://host:port. */
function splitScheme(addr: string): { addr: string; scheme: "http" | "https" | undefined } {
  const m = /^(https?):\/\/([^/]*)\/?$/.exec(addr);
  return m ? { addr: m[2]!, scheme: m[1] as "http" | "https" } : { addr, scheme: undefined };
}

/** The port of -serviceAddr, if it names one. */
export function servicePort(values: FlagValues): number | undefined {
  const addr = flagText(values, "serviceAddr");
  if (!addr || addr === "none") return undefined;
  try {
    const url = new URL(/^https?:\/\//.test(addr) ? addr : `https://${addr}`);
    return url.port === "" ? undefined : Number(url.port);
  } catch {
    return undefined;
  }
}

export function defaultAddr(addr: string, defaultHost: string, defaultPort: number): HostPort {
  if (addr === "") return { host: defaultHost, port: defaultPort };
  if (addr.startsWith(":")) return { host: defaultHost, port: portOf(addr.slice(1), addr) };
  const colon = addr.lastIndexOf(":");
  // Like the node: no colon means a bare host (not IPv6 safe, as in the node).
  if (colon < 0) return { host: addr, port: defaultPort };
  return {
    host: addr.slice(0, colon).replace(/^\[(.*)\]$/, "$1"),
    port: portOf(addr.slice(colon + 1), addr),
  };
}

function portOf(text: string, addr: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`"${addr}" has no valid port: use host:port`);
  return port;
}

export function formatHostPort(hp: HostPort): string {
  const host = hp.host.includes(":") ? `[${hp.host}]` : hp.host;
  return `${host}:${hp.port}`;
}
