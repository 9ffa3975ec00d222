// Exactly one role (an orchestrator may also transcode and run AI workers itself), and what each
// role cannot start without.
import { defaultAddr } from "../addresses.ts";
import { type FlagRule, problem } from "../problem.ts";
import { flagBool, flagText, isGiven } from "../read.ts";

const ROLE_FLAGS = "-orchestrator, -gateway, -transcoder or -aiWorker";

export const exactlyOneRole: FlagRule = ({ roles, values }) => {
  // -remoteSigner is a node type of its own (doc/remote-signer.md: not combined with a mode flag).
  if (flagBool(values, "remoteSigner")) {
    if (roles.length === 0) return [];
    return [
      problem(
        ["remoteSigner", ...roles].join(","),
        "error",
        `-remoteSigner with ${roles.map((r) => `-${r}`).join(" ")}: the remote signer is a node type of its own`,
        "run the signer as its own node, without -orchestrator, -gateway, -transcoder or -aiWorker",
      ),
    ];
  }
  if (roles.length === 0) {
    return [
      problem(
        "orchestrator,gateway,transcoder,aiWorker",
        "error",
        "no role flag: the node exits with 'No services enabled'",
        `add exactly one of ${ROLE_FLAGS}`,
      ),
    ];
  }
  // -orchestrator with -transcoder and/or -aiWorker is one node doing the work itself.
  const extra = roles.filter((r) => r !== "orchestrator");
  const combined = roles.includes("orchestrator")
    ? extra.some((r) => r === "gateway" || r === "redeemer")
    : roles.length > 1;
  if (!combined) return [];
  return [
    problem(
      roles.join(","),
      "error",
      `several roles given (${roles.map((r) => `-${r}`).join(" ")}): the node runs only as ${roles[0]} and ignores the rest`,
      "run one node per role; only -orchestrator may be combined with -transcoder and -aiWorker",
    ),
  ];
};

/** go-livepeer exits: "Remote signer mode requires on-chain network". */
export const remoteSignerOnChain: FlagRule = ({ values, onChain }) =>
  flagBool(values, "remoteSigner") && !onChain
    ? [
        {
          // starter.go's exit(): status 2.
          ...problem(
            "remoteSigner,network",
            "error",
            "-remoteSigner on the offchain network: the node exits (Remote signer mode requires on-chain network)",
            "set -network to a chain, with -ethUrl and the keystore flags",
          ),
          exitCode: 2,
        },
      ]
    : [];

export const legacyBroadcaster: FlagRule = ({ values }) =>
  flagBool(values, "broadcaster") && flagBool(values, "gateway")
    ? [
        problem(
          "broadcaster,gateway",
          "warning",
          "-broadcaster and -gateway are both given",
          "keep only -gateway",
        ),
      ]
    : [];

export const orchestratorWork: FlagRule = ({ values, role, roles }) => {
  if (role !== "orchestrator" || roles.includes("transcoder") || roles.includes("aiWorker")) return [];
  if (flagText(values, "orchSecret") || flagText(values, "aiModels")) return [];
  return [
    problem(
      "orchSecret",
      "error",
      "an orchestrator without -transcoder needs -orchSecret for its remote transcoders: the node exits",
      "add -transcoder to transcode in this node, or -orchSecret <secret or file> for remote transcoders",
    ),
  ];
};

export const workerNeedsOrchestrator: FlagRule = ({ values, role }) => {
  if (role !== "transcoder" && role !== "aiWorker") return [];
  const out = [];
  if (!flagText(values, "orchSecret")) {
    out.push(
      problem(
        "orchSecret",
        "error",
        `a standalone ${role} needs -orchSecret: the node exits`,
        "give the orchestrator's -orchSecret",
      ),
    );
  }
  if (!flagText(values, "orchAddr")) {
    out.push(
      problem(
        "orchAddr",
        "error",
        `a standalone ${role} needs -orchAddr: the node exits`,
        "give the orchestrator's host:port",
      ),
    );
  }
  return out;
};

export const serviceAddress: FlagRule = ({ values, role }) => {
  if (role !== "orchestrator") return [];
  const addr = flagText(values, "serviceAddr");
  if (!addr) {
    return [
      problem(
        "serviceAddr",
        "warning",
        "no -serviceAddr: the node asks a public IP service for its address (fails without internet access) and advertises that",
        "set -serviceAddr <host>:<port> to the address gateways reach this orchestrator at",
      ),
    ];
  }
  if (addr === "none") return [];
  let url: URL;
  try {
    url = new URL(/^https?:\/\//.test(addr) ? addr : `https://${addr}`);
  } catch {
    return [
      problem(
        "serviceAddr",
        "error",
        `-serviceAddr ${addr} is not a host:port`,
        "give <host>:<port>, e.g. orch.example.com:8935",
      ),
    ];
  }
  if (url.port === "" && !isGiven(values, "httpAddr")) {
    return [
      problem(
        "serviceAddr",
        "warning",
        `-serviceAddr ${addr} has no port: the node then listens for gateways on a random port`,
        "give the port too, e.g. -serviceAddr " + `${url.hostname}:8935`,
      ),
    ];
  }
  return [];
};

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1)$/i;

export const gatewayHttpIngest: FlagRule = ({ values, role }) => {
  if (role !== "gateway" || isGiven(values, "httpIngest") || flagText(values, "authWebhookUrl")) return [];
  let host: string;
  try {
    host = defaultAddr(flagText(values, "httpAddr") ?? "", "127.0.0.1", 9935).host;
  } catch {
    return [];
  }
  if (LOOPBACK_HOSTS.test(host)) return [];
  return [
    problem(
      "httpIngest",
      "warning",
      `-httpAddr ${flagText(values, "httpAddr")} is not loopback and there is no -authWebhookUrl: the node silently turns HTTP ingest (and AI requests) off`,
      "set -authWebhookUrl, or -httpIngest=true to accept unauthenticated HTTP ingest, or -httpIngest=false to make it explicit",
    ),
  ];
};
