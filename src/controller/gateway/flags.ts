// What a Gateway resource means in go-livepeer flags (pure). The node-pod builder renders them into
// the node's config file; the discovery URL, which carries a token, reaches the node as the
// LP_ORCHWEBHOOKURL variable from the gateway's Secret instead (never in a ConfigMap), and a keyless
// gateway's signer headers as LP_REMOTESIGNERHEADERS from the Secret its spec names.
import type { FlagValue, FlagValues } from "../../node/config/index.ts";
import type { GatewaySpec } from "../../schema/gateway.ts";
import { chainFlags, type DevnetChain, MOUNTS } from "../node-pod/index.ts";
import { PORTS } from "./names.ts";

export const MAX_PRICE_PER_CAPABILITY_FILE = "maxPricePerCapability.json";

export interface GatewayFlagsInput {
  spec: GatewaySpec;
  devnet?: DevnetChain;
  /** spec.remoteSigner: where the signer's Service (or, without cluster DNS, a pod) answers. */
  remoteSignerUrl?: string;
}

export function gatewayFlags({ spec, devnet, remoteSignerUrl }: GatewayFlagsInput): FlagValues {
  const network = spec.network ?? "offchain";
  const f: Record<string, FlagValue> = {
    gateway: true,
    network,
    cliAddr: `0.0.0.0:${PORTS.cli}`,
    httpAddr: `0.0.0.0:${PORTS.http}`,
    // RTMP off: the listener stays inside the pod, and no Service publishes it.
    rtmpAddr: spec.ingest.rtmp.enabled ? `0.0.0.0:${PORTS.rtmp}` : `127.0.0.1:${PORTS.rtmp}`,
    // Explicit: without -authWebhookUrl the node turns HTTP ingest off on a non-local -httpAddr.
    httpIngest: spec.ingest.http,
    dataDir: MOUNTS.data,
    monitor: true,
    ...chainFlags(spec, devnet),
  };
  if (spec.maxPricePerUnit !== undefined) {
    f.maxPricePerUnit = spec.maxPricePerUnit;
    f.pixelsPerUnit = spec.pixelsPerUnit;
  }
  if (spec.maxPricePerCapability?.length) {
    f.maxPricePerCapability = `${MOUNTS.config}/${MAX_PRICE_PER_CAPABILITY_FILE}`;
  }
  if (spec.maxSessions !== undefined) f.maxSessions = String(spec.maxSessions);
  if (spec.ai?.serviceRegistry && network !== "offchain") f.aiServiceRegistry = true;
  if (spec.orchestrators.addresses) f.orchAddr = spec.orchestrators.addresses.join(",");
  // Keyless: off chain (no -network, as go-livepeer's doc asks; no keystore or eth flags: the schema
  // forbids them), the signer
  // signs and pays. Its headers (a tenant token) reach the node as LP_REMOTESIGNERHEADERS.
  if (spec.remoteSigner) {
    delete f.network;
    if (remoteSignerUrl) f.remoteSignerUrl = remoteSignerUrl;
  }
  return f;
}

/** The node's -maxPricePerCapability file: the format go-livepeer reads. */
export function maxPricePerCapabilityFile(spec: GatewaySpec): string | undefined {
  if (!spec.maxPricePerCapability?.length) return undefined;
  const capabilities_prices = spec.maxPricePerCapability.map((c) => {
    const m = /^(\d+(?:\.\d+)?)([A-Za-z][A-Za-z0-9]*)?$/.exec(c.maxPricePerUnit);
    return {
      pipeline: c.pipeline,
      model_id: c.modelId ?? "default",
      price_per_unit: m ? Number(m[1]) : c.maxPricePerUnit,
      pixels_per_unit: c.pixelsPerUnit,
      ...(m?.[2] ? { currency: m[2] } : {}),
    };
  });
  return `${JSON.stringify({ capabilities_prices }, null, 2)}\n`;
}
