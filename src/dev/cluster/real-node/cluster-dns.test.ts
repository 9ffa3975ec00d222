// The real node's cluster DNS: Service names answer their ClusterIP, everything else NXDOMAIN.
import { describe, expect, it } from "vitest";
import { answer, clusterNameOf, parseQuestion } from "./cluster-dns.ts";

/** A query as a stub resolver sends it (RD set, one question, class IN). */
function query(name: string, type = 1, id = 0x1234): Buffer {
  const labels = name.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, type, 0, 1])]);
}

describe("cluster DNS for the real node", () => {
  it.each([
    ["lpo-api.livepeer-system.svc.cluster.local", { service: "lpo-api", namespace: "livepeer-system" }],
    ["kubernetes.default.svc.cluster.local", { service: "kubernetes", namespace: "default" }],
    ["orch-0.orch-pods.video.svc.cluster.local", { pod: "orch-0", service: "orch-pods", namespace: "video" }],
    ["lpo-api.livepeer-system.svc.e2e-video.svc.cluster.local", undefined],
    ["lpo-api.livepeer-system.svc", undefined],
    ["example.com", undefined],
  ])("%s names %j", (name, target) => {
    expect(clusterNameOf(name)).toEqual(target);
  });

  it("reads the question of a query, lower-cased", () => {
    const q = parseQuestion(query("LPO-API.livepeer-system.svc.cluster.local", 28));
    expect(q).toMatchObject({ id: 0x1234, name: "lpo-api.livepeer-system.svc.cluster.local", type: 28 });
    expect(q?.recursionDesired).toBe(true);
  });

  it.each([
    ["a truncated header", Buffer.from([1, 2, 3])],
    ["a response", Buffer.from([0, 1, 0x81, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1])],
    ["a label running past the end", Buffer.from([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 97])],
  ])("refuses %s", (_, packet) => {
    expect(parseQuestion(packet)).toBeUndefined();
  });

  it("answers an A question with the ClusterIP, id and question echoed", () => {
    const q = parseQuestion(query("lpo-api.livepeer-system.svc.cluster.local"))!;
    const r = answer(q, "10.96.12.34");
    expect(r.readUInt16BE(0)).toBe(0x1234);
    expect(r.readUInt16BE(2) & 0x8000).toBe(0x8000); // a response
    expect(r.readUInt16BE(2) & 0x000f).toBe(0); // NOERROR
    expect(r.readUInt16BE(6)).toBe(1); // one answer
    expect([...r.subarray(r.length - 4)]).toEqual([10, 96, 12, 34]);
    expect(r.subarray(12, 12 + q.raw.length).equals(q.raw)).toBe(true);
  });

  it("answers AAAA of a known Service with no record, and an unknown name with NXDOMAIN", () => {
    const aaaa = answer(
      parseQuestion(query("lpo-api.livepeer-system.svc.cluster.local", 28))!,
      "10.96.12.34",
    );
    expect(aaaa.readUInt16BE(2) & 0x000f).toBe(0);
    expect(aaaa.readUInt16BE(6)).toBe(0);
    const unknown = answer(parseQuestion(query("example.com"))!, undefined);
    expect(unknown.readUInt16BE(2) & 0x000f).toBe(3);
    expect(unknown.readUInt16BE(6)).toBe(0);
  });
});
