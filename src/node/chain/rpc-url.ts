// The node's -ethUrl as the chain checks see it. "Remote" means the traffic leaves the cluster:
// any host but loopback (127.0.0.0/8, ::1, localhost) or a cluster-internal name (one label such
// as `arbitrum-rpc`, `*.svc`, `*.svc.cluster.local`). An IP literal other than loopback counts
// as remote: from inside a pod a VPC peer and the internet look the same. The devnet is local by
// definition. This is the same line the flag validator draws (config/rules/chain.ts).
// RPC URLs often carry an API key in the path or query, so only the redacted form is ever shown.
import { isLocalOrInCluster } from "../config/rules/chain.ts";

export interface RpcUrl {
  /** The URL as given: used to connect, never shown. */
  url: string;
  /** scheme://host[:port], plus "/..." when there was more: safe to print. */
  shown: string;
  scheme: "http" | "https" | "ws" | "wss";
  /** The chain checks read over http(s) only. */
  readable: boolean;
  remote: boolean;
  /** Traffic is encrypted (https, wss). */
  secure: boolean;
}

export class RpcUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RpcUrlError";
  }
}

export function redactUrl(url: URL): string {
  const rest = (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash ? "/..." : "";
  return `${url.protocol}//${url.host}${rest}`;
}

export function parseRpcUrl(text: string, opts: { devnet?: boolean } = {}): RpcUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RpcUrlError(
      "-ethUrl is not a URL: give the chain's JSON-RPC URL, e.g. https://arb1.arbitrum.io/rpc or http://127.0.0.1:8545",
    );
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== "http" && scheme !== "https" && scheme !== "ws" && scheme !== "wss") {
    throw new RpcUrlError(
      `-ethUrl ${redactUrl(url)} has scheme ${scheme}: a chain RPC is http(s):// or ws(s)://`,
    );
  }
  return {
    url: text,
    shown: redactUrl(url),
    scheme,
    readable: scheme === "http" || scheme === "https",
    remote: !opts.devnet && !isLocalOrInCluster(url.hostname),
    secure: scheme === "https" || scheme === "wss",
  };
}
