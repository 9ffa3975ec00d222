// GET /status (CLI port, and the service port): the spec's SessionLimit and PricePerUnit when the
// node sends them (the real node does not: fall back to /metrics and the rendered flags).
import { getJson, missingField, type RequestOptions } from "./http.ts";
import { StatusSchema } from "./schemas.ts";

export interface NodeStatus {
  sessionLimit: number | undefined;
  /** As the node wrote it: wei ("1000") or with a currency ("0.5USD"). */
  pricePerUnit: string | undefined;
  version: string | undefined;
  orchestratorPool: string[];
  registeredTranscoders: { address: string; capacity: number }[];
  localTranscoding: boolean | undefined;
  /**
   * A gateway's live streams: the manifest IDs of its RTMP/HTTP ingests (server/mediaserver.go
   * GetNodeStatus lists one Manifests entry per live stream); an orchestrator lists none.
   */
  manifests: string[];
  /** True when the answer comes from livepeer-operator's node simulator. */
  simulated: boolean;
  raw: Record<string, unknown>;
}

export interface StatusOptions extends RequestOptions {
  /** Spec fields that must be present (else a missing-field error). */
  require?: readonly ("SessionLimit" | "PricePerUnit")[];
}

export async function readStatus(baseUrl: string, options: StatusOptions = {}): Promise<NodeStatus> {
  const s = await getJson(baseUrl, "/status", StatusSchema, options);
  for (const field of options.require ?? []) {
    if (s[field] === undefined) throw missingField(baseUrl, "/status", field);
  }
  return {
    sessionLimit: s.SessionLimit,
    pricePerUnit: s.PricePerUnit === undefined ? undefined : String(s.PricePerUnit),
    version: s.Version,
    orchestratorPool: s.OrchestratorPool,
    registeredTranscoders: s.RegisteredTranscoders.map((t) => ({ address: t.Address, capacity: t.Capacity })),
    localTranscoding: s.LocalTranscoding,
    manifests: Object.keys(s.Manifests ?? {}),
    simulated: s.Simulated === true,
    raw: s as Record<string, unknown>,
  };
}
