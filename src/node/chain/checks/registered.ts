// Registered (orchestrators): gateways find an orchestrator through the chain - a registered
// transcoder with a service URI - and dial that URI. So: is there one, and does it name the
// address the operator exposes the node at (-serviceAddr host:port against the URI's https
// host:port, compared as go-livepeer compares them: host and port)?
//
// Severity: not registered means no on-chain gateway can find the node: error. A mismatch is a
// warning: a proxy or load balancer the operator runs in front of the node may be what the URI
// names, which the operator cannot see from here.
import { type CheckResult, chainFinding, notRead } from "../chain-finding.ts";
import type { NodeChainFacts } from "../facts.ts";

export interface RegistrationInput {
  address: string;
  /** -serviceAddr, host:port; undefined: nothing to compare with. */
  serviceAddr?: string;
  facts: NodeChainFacts;
}

export function registration(input: RegistrationInput): CheckResult {
  const o = input.facts.orchestrator;
  if (!o) return { condition: notRead(input.facts), findings: [] };
  if (o.serviceURI === "") {
    return notRegistered(
      `${input.address} has no service URI on chain, so no gateway can find it: register it with livepeer_cli (set the service URI to https://${input.serviceAddr ?? "<serviceAddr>"})`,
    );
  }
  if (!o.registered && !o.active) {
    return notRegistered(
      `${input.address} announces ${o.serviceURI} but is not a registered transcoder (no stake bonded to itself, or it resigned by unbonding): bond LPT to it and register it as transcoder with livepeer_cli`,
    );
  }
  if (input.serviceAddr === undefined) {
    return registered(
      "ServiceURIRegistered",
      `on chain ${o.serviceURI} (no service address to compare with)`,
    );
  }
  const mismatch = serviceUriMismatch(o.serviceURI, input.serviceAddr);
  if (!mismatch) {
    return registered(
      "ServiceURIMatches",
      `on chain ${o.serviceURI}, the node's service address ${input.serviceAddr}`,
    );
  }
  const message = `the on-chain service URI ${o.serviceURI} ${mismatch} the node's service address ${input.serviceAddr}, so gateways dial elsewhere: set the URI to https://${input.serviceAddr} (livepeer-operator service-uri set https://${input.serviceAddr}, livepeer_cli or /setOrchestratorConfig), or set -serviceAddr to the address the URI names if a proxy there forwards to the node`;
  return {
    condition: {
      type: "Registered",
      status: "False",
      reason: "ServiceURIMismatch",
      message,
      severity: "warning",
    },
    findings: [chainFinding("ServiceURIMismatch", message)],
  };
}

/** How the URI fails to name host:port ("is not https like", "names another host than"), or undefined. */
export function serviceUriMismatch(uri: string, serviceAddr: string): string | undefined {
  let onChain: URL;
  let exposed: URL;
  try {
    onChain = new URL(uri);
  } catch {
    return "is not a URL, unlike";
  }
  try {
    exposed = new URL(`https://${serviceAddr}`);
  } catch {
    return "cannot be compared with";
  }
  if (onChain.protocol !== "https:") return "is not https (gateways dial orchestrators over https), unlike";
  const port = (u: URL) => u.port || "443";
  if (onChain.hostname.toLowerCase() !== exposed.hostname.toLowerCase()) return "names another host than";
  if (port(onChain) !== port(exposed)) return "names another port than";
  return undefined;
}

function notRegistered(message: string): CheckResult {
  return {
    condition: { type: "Registered", status: "False", reason: "NotRegistered", message, severity: "error" },
    findings: [chainFinding("NotRegistered", message)],
  };
}

function registered(reason: string, message: string): CheckResult {
  return { condition: { type: "Registered", status: "True", reason, message }, findings: [] };
}
