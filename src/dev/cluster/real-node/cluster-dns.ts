// Cluster DNS for the real node's pods, just enough for Services: `<service>.<namespace>.svc.
// cluster.local` answers the Service's ClusterIP, and `<pod>.<headless service>.<namespace>.svc.
// cluster.local` a StatefulSet pod's IP (the operator hands gateway pods such names: the API's
// node-hook URL, orchestrators' service addresses). A UDP responder on the bridge's gateway address, named to the
// kubelet as clusterDNS; every other name gets NXDOMAIN at once (nothing here resolves outside
// names). Wire format per RFC 1035; parsing and answering are pure.
import dgram from "node:dgram";
import type { CoreV1Api } from "@kubernetes/client-node";

export const CLUSTER_DOMAIN = "cluster.local";
const TYPE_A = 1;
const CLASS_IN = 1;
const NXDOMAIN = 3;
const FORMERR = 1;
const TTL_SECONDS = 5;

export interface DnsQuestion {
  id: number;
  /** Lower case, without the trailing dot. */
  name: string;
  type: number;
  /** The question section as received (echoed in the answer). */
  raw: Buffer;
  recursionDesired: boolean;
}

/** The first question of a query; undefined when the packet is not a well-formed query. */
export function parseQuestion(packet: Buffer): DnsQuestion | undefined {
  if (packet.length < 12 || packet.readUInt16BE(4) < 1 || packet[2]! & 0x80) return undefined;
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    const len = packet[at];
    if (len === undefined || len > 63) return undefined; // no compression in a question
    at += 1;
    if (len === 0) break;
    if (at + len > packet.length) return undefined;
    labels.push(packet.toString("latin1", at, at + len).toLowerCase());
    at += len;
  }
  if (at + 4 > packet.length) return undefined;
  return {
    id: packet.readUInt16BE(0),
    name: labels.join("."),
    type: packet.readUInt16BE(at),
    raw: packet.subarray(12, at + 4),
    recursionDesired: !!(packet[2]! & 0x01),
  };
}

export type ClusterName =
  | { service: string; namespace: string }
  | { pod: string; service: string; namespace: string };

/** What a name asks for: a Service, or a pod by its hostname under a headless Service. */
export function clusterNameOf(name: string): ClusterName | undefined {
  const m = /^(?:([a-z0-9-]+)\.)?([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local$/.exec(name);
  if (!m) return undefined;
  return m[1] ? { pod: m[1], service: m[2]!, namespace: m[3]! } : { service: m[2]!, namespace: m[3]! };
}

/**
 * The answer to `q`: `address` (IPv4) as an A record when the question is of type A, no record
 * (NOERROR) for other types of a known name, NXDOMAIN when `address` is undefined.
 */
export function answer(q: DnsQuestion, address: string | undefined): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(q.id, 0);
  // QR, AA, and RD echoed; RA off (we do not recurse).
  header.writeUInt16BE(
    0x8400 | (q.recursionDesired ? 0x0100 : 0) | (address === undefined ? NXDOMAIN : 0),
    2,
  );
  header.writeUInt16BE(1, 4);
  const records: Buffer[] = [];
  if (address !== undefined && q.type === TYPE_A) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(TTL_SECONDS, 6);
    rr.writeUInt16BE(4, 10);
    Buffer.from(address.split(".").map(Number)).copy(rr, 12);
    records.push(rr);
  }
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, q.raw, ...records]);
}

/** FORMERR for a packet that is not a query we can read (its id echoed when there is one). */
function formatError(packet: Buffer): Buffer {
  const header = Buffer.alloc(12);
  if (packet.length >= 2) header.writeUInt16BE(packet.readUInt16BE(0), 0);
  header.writeUInt16BE(0x8000 | FORMERR, 2);
  return header;
}

async function resolve(name: ClusterName | undefined, core: CoreV1Api): Promise<string | undefined> {
  if (!name) return undefined;
  if (!("pod" in name)) {
    return (await core.readNamespacedService({ name: name.service, namespace: name.namespace })).spec
      ?.clusterIP;
  }
  // A pod answers under a headless Service when its subdomain names it (StatefulSet pods do).
  const pod = await core.readNamespacedPod({ name: name.pod, namespace: name.namespace });
  return pod.spec?.subdomain === name.service ? pod.status?.podIP : undefined;
}

export interface ClusterDns {
  address: string;
  stop(): Promise<void>;
}

/** Serves Service names on `address`:53 (UDP), looking Services up through the API. */
export async function startClusterDns(address: string, core: CoreV1Api): Promise<ClusterDns> {
  const socket = dgram.createSocket("udp4");
  socket.on("message", async (packet, peer) => {
    const q = parseQuestion(packet);
    let reply: Buffer;
    if (!q) reply = formatError(packet);
    else {
      const ip = await resolve(clusterNameOf(q.name), core).catch(() => undefined);
      reply = answer(q, ip && ip !== "None" ? ip : undefined);
    }
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", (err) =>
      reject(
        new Error(
          `the real node's cluster DNS cannot listen on ${address}:53 (${err.message}): something else holds UDP port 53 on every address ('ss -ulpn sport = :53' names it); stop it, or start the node without serviceProxy`,
        ),
      ),
    );
    socket.bind(53, address, () => resolve());
  });
  return {
    address,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
