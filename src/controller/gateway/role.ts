// The gateway as a role of the node-pod builder. It takes streams in on HTTP (8935, also where it
// serves HLS and AI requests) and RTMP (1935), published on the Service whose type the spec
// chooses; its CLI port (5935) can change the running node and is in no Service. A gateway needs
// no GPU: it only forwards segments and pays orchestrators, whose GPUs do the transcoding.
import { GATEWAY_PRICE_CAP, SESSION_LIMIT } from "../live/node-settings.ts";
import type { NodePodRole } from "../node-pod/index.ts";
import { GATEWAY_CAPABILITY_CAPS } from "./capability-caps.ts";
import { type GatewayFlagsInput, gatewayFlags } from "./flags.ts";
import { PORTS } from "./names.ts";

/** Set on the running node through its CLI port: a change of them alone does not restart it. */
export const GATEWAY_LIVE = [GATEWAY_PRICE_CAP, SESSION_LIMIT, GATEWAY_CAPABILITY_CAPS] as const;

export function gatewayRole(rtmp: boolean): NodePodRole<GatewayFlagsInput> {
  return {
    component: "gateway",
    ports: [
      { name: "http", containerPort: PORTS.http, publish: "public" },
      { name: "rtmp", containerPort: PORTS.rtmp, publish: rtmp ? "public" : "none" },
      { name: "cli", containerPort: PORTS.cli, publish: "none" },
    ],
    statusPort: "cli",
    gpu: "none",
    secrets: ["keystore"],
    flags: (facts) => gatewayFlags(facts),
    live: GATEWAY_LIVE,
    configHeader: (owner) => `Rendered by livepeer-operator for Gateway ${owner}; edits are overwritten.`,
    // The capability caps file is set live (capability-caps.ts): not an input.
    configInputs: (n) => [n.restartConfig],
  };
}
