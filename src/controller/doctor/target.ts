// A node pod as the doctor sees it: where its endpoints are and what state its container is in.
// Built by each controller from its cache (it knows its pods' ports and what work they expect).

export interface NodeTarget {
  pod: string;
  uid: string;
  /** The pod IP as the pod reports it: dialled as is (in a cluster, the pod network). */
  ip: string | undefined;
  /** Port of the node's CLI/status listener (-cliAddr); an AI runner's HTTP port. */
  cliPort: number;
  /** The orchestrator's service port (-httpAddr): gRPC net.Orchestrator over TLS. */
  servicePort?: number | undefined;
  role: "orchestrator" | "transcoder" | "gateway" | "aiRunner";
  /** The pod's Ready condition: endpoints are read only then. */
  ready: boolean;
  /** A container is (or was) running, so it has a log to read. */
  hasLog: boolean;
  restartCount: number;
  startedAt?: Date | undefined;
  /** AI work is expected of this node (spec.ai): advertising no AI capability is a finding. */
  aiExpected: boolean;
  /**
   * An on-chain gateway: its node lists what its orchestrators quoted it (/getNetworkCapabilities),
   * read each look.
   */
  quotes?: boolean;
  /** Live runners are registered with this orchestrator (spec.ai.live): its GET /discovery is read. */
  liveExpected?: boolean;
}

/** http://ip:port, with brackets for IPv6. */
export function nodeUrl(ip: string, port: number): string {
  return `http://${ip.includes(":") ? `[${ip}]` : ip}:${port}`;
}

/** https://ip:port: an orchestrator's service port speaks TLS (its own self-signed certificate). */
export function serviceUrl(ip: string, port: number): string {
  return `https://${ip.includes(":") ? `[${ip}]` : ip}:${port}`;
}
