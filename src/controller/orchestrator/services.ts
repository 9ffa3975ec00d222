// The Services of a node: the public service port (type from the spec), the cluster-internal
// CLI/status port, and the StatefulSet's headless Service, which publishes pods before they are
// Ready so the node's startup self-check of its own address can succeed.
import type { V1Service } from "@kubernetes/client-node";

export interface ServicesInput {
  namespace: string;
  selector: Record<string, string>;
  labels: Record<string, string>;
  names: { service: string; cliService: string; podsService: string };
  type: "ClusterIP" | "NodePort" | "LoadBalancer";
  /** Port the Service exposes for the node's service port. */
  port: number;
  servicePort: number;
  cliPort: number;
}

export function buildServices(i: ServicesInput): V1Service[] {
  const meta = (name: string) => ({ name, namespace: i.namespace, labels: i.labels });
  return [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.service),
      spec: {
        type: i.type,
        selector: i.selector,
        ports: [{ name: "service", port: i.port, targetPort: i.servicePort, protocol: "TCP" }],
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.cliService),
      spec: {
        type: "ClusterIP",
        selector: i.selector,
        ports: [{ name: "cli", port: i.cliPort, targetPort: i.cliPort, protocol: "TCP" }],
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.podsService),
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: i.selector,
        ports: [
          { name: "service", port: i.servicePort, targetPort: i.servicePort, protocol: "TCP" },
          { name: "cli", port: i.cliPort, targetPort: i.cliPort, protocol: "TCP" },
        ],
      },
    },
  ];
}

/**
 * The address gateways use (`-serviceAddr`): the spec's, else the Service's external address
 * (a LoadBalancer's ingress), else the first pod's stable in-cluster DNS name.
 */
export function serviceAddressFor(input: {
  specServiceAddr?: string;
  service?: V1Service;
  port: number;
  namespace: string;
  statefulSet: string;
  podsService: string;
}): { address: string; source: "spec" | "loadBalancer" | "cluster"; externallyReachable: boolean } {
  if (input.specServiceAddr)
    return { address: input.specServiceAddr, source: "spec", externallyReachable: true };
  const ingress = input.service?.status?.loadBalancer?.ingress?.[0];
  const host = ingress?.hostname ?? ingress?.ip;
  if (host) return { address: `${host}:${input.port}`, source: "loadBalancer", externallyReachable: true };
  return {
    address: `${input.statefulSet}-0.${input.podsService}.${input.namespace}.svc.cluster.local:${input.port}`,
    source: "cluster",
    externallyReachable: false,
  };
}
