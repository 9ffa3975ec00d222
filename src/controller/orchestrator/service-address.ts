// The address gateways use (`-serviceAddr`), decided from what the cluster reports (pure).
//
// - spec.serviceAddr wins.
// - ClusterIP: the first pod's stable in-cluster DNS name (the headless Service publishes it
//   before the pod is Ready, so the node's own startup check of it succeeds).
// - LoadBalancer: the Service's status.loadBalancer.ingress (hostname, else ip) and the Service
//   port. Until the cloud reports one, the node is not started at all: an address gateways
//   cannot use would be advertised (and possibly registered on chain) for nothing.
// - NodePort: a node's ExternalIP (else InternalIP) and the node port, from the node running the
//   pod. That node is known only once the pod is placed, so the pod starts with its in-cluster
//   address and restarts once when the node is known. With externalTrafficPolicy Cluster (the
//   default, which the operator keeps) every node forwards its node port to the pod, so an
//   address already advertised stays valid while its node exists: it is kept when the pod is
//   replaced or moves (also while the replacement is not placed yet), and the pod does not roll
//   again.
//
// An external address is not checked by the node at start (`-startupAvailabilityCheck=false`):
// it may not hairpin back into the cluster from inside the pod.
import type { V1Service } from "@kubernetes/client-node";

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer";

/** The node's ConfigMap records the address its config holds (read back as `advertised`). */
export const SERVICE_ADDR_ANNOTATION = "livepeer.org/service-addr";

export interface NodeAddresses {
  metadata: { name?: string };
  status?: { addresses?: { type: string; address: string }[] };
}

export interface ServiceAddressInput {
  specServiceAddr?: string;
  type: ServiceType;
  /** The public Service as the API server reports it (node port, load balancer ingress). */
  service?: Pick<V1Service, "spec" | "status">;
  /** spec.service.port: the port a LoadBalancer listens on. */
  port: number;
  /** Name of the Service's port that targets the node's service port. */
  portName: string;
  /** The node the orchestrator pod runs on, once it is placed. */
  podNode?: string;
  nodes: NodeAddresses[];
  /** Addresses the node was given: what its ConfigMap records and status.serviceAddr. */
  advertised?: string[];
  /** host:port of the first pod in the cluster's DNS. */
  clusterAddress: string;
}

export interface ServiceAddress {
  /** Absent while a LoadBalancer has no address yet (the node must not start). */
  address?: string;
  source: "spec" | "cluster" | "loadBalancer" | "nodePort";
  /** Why the address is not the final one yet, for a condition message. */
  pending?: string;
  /** True when the node must not be (re)started until the address is known. */
  holdRollout: boolean;
}

const hostPort = (host: string, port: number) =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;

/** A node's address as seen from outside: ExternalIP, else InternalIP. */
export function nodeAddress(node: NodeAddresses | undefined): string | undefined {
  const addresses = node?.status?.addresses ?? [];
  return (
    addresses.find((a) => a.type === "ExternalIP")?.address ??
    addresses.find((a) => a.type === "InternalIP")?.address
  );
}

export function serviceAddressFor(i: ServiceAddressInput): ServiceAddress {
  if (i.specServiceAddr) return { address: i.specServiceAddr, source: "spec", holdRollout: false };
  if (i.type === "LoadBalancer") {
    const ingress = i.service?.status?.loadBalancer?.ingress?.find((x) => x.hostname || x.ip);
    const host = ingress?.hostname ?? ingress?.ip;
    if (host) return { address: hostPort(host, i.port), source: "loadBalancer", holdRollout: false };
    return {
      source: "loadBalancer",
      holdRollout: true,
      pending:
        "waiting for the LoadBalancer Service to get an external address (status.loadBalancer.ingress); the node starts once it is known, so it never advertises an address gateways cannot use (no load balancer controller in this cluster? set spec.serviceAddr, or spec.service.type NodePort)",
    };
  }
  if (i.type === "NodePort") {
    const nodePort = i.service?.spec?.ports?.find((p) => p.name === i.portName)?.nodePort;
    const interim = (why: string): ServiceAddress => ({
      address: i.clusterAddress,
      source: "cluster",
      holdRollout: false,
      pending: `${why}: the node runs with its in-cluster address ${i.clusterAddress} meanwhile and restarts once with the NodePort address`,
    });
    if (!nodePort) return interim("waiting for the NodePort Service to be assigned a node port");
    const kept = keptNodePortAddress(i.advertised ?? [], nodePort, i.nodes);
    if (kept) return { address: kept, source: "nodePort", holdRollout: false };
    if (!i.podNode)
      return interim("waiting for the pod to be placed on a node, whose address gateways will use");
    const host = nodeAddress(i.nodes.find((n) => n.metadata.name === i.podNode));
    if (!host) {
      return interim(
        `node ${i.podNode} reports no ExternalIP or InternalIP (set spec.serviceAddr to the address gateways reach it by)`,
      );
    }
    return { address: hostPort(host, nodePort), source: "nodePort", holdRollout: false };
  }
  return { address: i.clusterAddress, source: "cluster", holdRollout: false };
}

/** An advertised NodePort address some node still answers on. */
function keptNodePortAddress(advertised: string[], nodePort: number, nodes: NodeAddresses[]) {
  const valid = new Set(
    nodes
      .map((n) => nodeAddress(n))
      .flatMap((host) => (host === undefined ? [] : [hostPort(host, nodePort)])),
  );
  return advertised.find((a) => valid.has(a));
}
