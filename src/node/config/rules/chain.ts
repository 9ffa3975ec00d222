// Chain settings: what an on-chain node cannot start without, and a remote RPC only over https.
import { DEPRECATED_NETWORKS, DEVNET, needsEthController } from "../networks.ts";
import { type FlagProblem, type FlagRule, problem } from "../problem.ts";
import { flagBool, flagText } from "../read.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const ethUrlScheme: FlagRule = ({ values, network }) => {
  const ethUrl = flagText(values, "ethUrl");
  if (!ethUrl) return [];
  let url: URL;
  try {
    url = new URL(ethUrl);
  } catch {
    return [
      problem(
        "ethUrl",
        "error",
        `-ethUrl ${ethUrl} is not a URL`,
        "give the chain RPC URL, e.g. https://arb1.arbitrum.io/rpc",
      ),
    ];
  }
  if (url.protocol === "https:" || network === DEVNET || isLocalOrInCluster(url.hostname)) return [];
  return [
    problem(
      "ethUrl",
      "error",
      `-ethUrl ${url.protocol}//${url.host}${url.pathname === "/" ? "" : "/..."} is a remote endpoint without https`,
      "use an https:// URL for a remote RPC provider (plain http is only for loopback, in-cluster Service names and the devnet)",
    ),
  ];
};

/** Loopback, or a name only resolvable inside the cluster (single label, *.svc, *.svc.cluster.local). */
export function isLocalOrInCluster(hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  if (/^127(\.\d{1,3}){3}$/.test(host)) return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":")) return false;
  return !host.includes(".") || host.endsWith(".svc") || host.endsWith(".svc.cluster.local");
}

export const onChainRequirements: FlagRule = ({ values, onChain, network, role }) => {
  if (!onChain) return [];
  const out: FlagProblem[] = [];
  const missing = (
    flag: "ethUrl" | "ethKeystorePath" | "ethPassword",
    severity: FlagProblem["severity"],
    why: string,
    fix: string,
  ) => {
    if (!flagText(values, flag))
      out.push(problem(flag, severity, `-network ${network} without -${flag}: ${why}`, fix));
  };
  missing(
    "ethUrl",
    "error",
    "the node exits (it needs a chain RPC)",
    "set -ethUrl to the layer-2 chain's JSON-RPC URL",
  );
  // A remote signer signs the tickets an on-chain gateway would.
  const gateway = role === "gateway" || flagBool(values, "remoteSigner");
  missing(
    "ethKeystorePath",
    gateway ? "error" : "warning",
    gateway
      ? "an on-chain gateway needs its keystore to sign payment tickets"
      : "the node looks in <dataDir>/keystore and creates a new account if none is there",
    "set -ethKeystorePath to the keystore directory or key file (the path inside the container)",
  );
  missing(
    "ethPassword",
    "error",
    "the node prompts for the keystore password on stdin and hangs",
    "set -ethPassword to a file holding the password (no trailing newline)",
  );
  return out;
};

export const controllerAddress: FlagRule = ({ values, network }) => {
  const controller = flagText(values, "ethController");
  if (controller && !ADDRESS.test(controller)) {
    return [
      problem(
        "ethController",
        "error",
        `-ethController ${controller} is not an address`,
        "give the Controller contract address, 0x followed by 40 hex digits",
      ),
    ];
  }
  if (!needsEthController(network) || controller) return [];
  return [
    problem(
      "ethController",
      "error",
      `-network ${network} has no built-in protocol Controller address`,
      "set -ethController to the Controller contract of that chain (for a devnet: from its deployment), or use a network the node knows (mainnet, arbitrum-one-mainnet)",
    ),
  ];
};

export const deprecatedNetwork: FlagRule = ({ network }) =>
  DEPRECATED_NETWORKS.has(network)
    ? [
        problem(
          "network",
          "warning",
          `-network ${network} is deprecated: its chain no longer runs`,
          "use arbitrum-one-mainnet (or a devnet)",
        ),
      ]
    : [];

export const accountAddress: FlagRule = ({ values }) => {
  const addr = flagText(values, "ethAcctAddr");
  return addr && !ADDRESS.test(addr)
    ? [
        problem(
          "ethAcctAddr",
          "error",
          `-ethAcctAddr ${addr} is not an account address`,
          "give 0x followed by 40 hex digits",
        ),
      ]
    : [];
};
