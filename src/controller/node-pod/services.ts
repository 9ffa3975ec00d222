// The Services of a node, from the ports its role publishes: the public ones on a Service whose
// type the spec chooses, the cluster-internal ones (the CLI/status port) on a ClusterIP Service,
// and both on the StatefulSet's headless Service, which publishes pods before they are Ready so
// the node's startup self-check of its own address can succeed. Ports a role publishes nowhere
// (a gateway's CLI port) are in none of them.
import type { V1Service, V1ServicePort } from "@kubernetes/client-node";
import type { SERVICE_TYPES } from "../../schema/workload.ts";
import type { NodeChildNames } from "./names.ts";
import type { RolePort } from "./role.ts";

export type ServiceType = (typeof SERVICE_TYPES)[number];

export interface PublicService {
  type: ServiceType;
  /** The port the Service exposes for each public port, by name (absent: the container port). */
  ports?: Readonly<Record<string, number>>;
}

export interface NodeServicesInput {
  namespace: string;
  labels: Record<string, string>;
  names: Pick<NodeChildNames, "service" | "cliService" | "podsService">;
  ports: readonly RolePort[];
  service: PublicService;
}

const tcp = (name: string, port: number, targetPort: number): V1ServicePort => ({
  name,
  port,
  targetPort,
  protocol: "TCP",
});

export function buildNodeServices(i: NodeServicesInput): V1Service[] {
  const meta = (name: string) => ({ name, namespace: i.namespace, labels: i.labels });
  const publicPorts = i.ports.filter((p) => p.publish === "public");
  const clusterPorts = i.ports.filter((p) => p.publish === "cluster");
  const services: V1Service[] = [];
  if (publicPorts.length) {
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.service),
      spec: {
        type: i.service.type,
        selector: i.labels,
        ports: publicPorts.map((p) =>
          tcp(p.name, i.service.ports?.[p.name] ?? p.containerPort, p.containerPort),
        ),
      },
    });
  }
  if (clusterPorts.length) {
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.cliService),
      spec: {
        type: "ClusterIP",
        selector: i.labels,
        ports: clusterPorts.map((p) => tcp(p.name, p.containerPort, p.containerPort)),
      },
    });
  }
  const published = i.ports.filter((p) => p.publish !== "none");
  if (published.length) {
    services.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(i.names.podsService),
      spec: {
        clusterIP: "None",
        publishNotReadyAddresses: true,
        selector: i.labels,
        ports: published.map((p) => tcp(p.name, p.containerPort, p.containerPort)),
      },
    });
  }
  return services;
}
