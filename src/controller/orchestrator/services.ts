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
