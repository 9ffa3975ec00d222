// The service port's certificate is a real X.509 certificate: OpenSSL (behind Node's
// X509Certificate and TLS) parses it, its signature verifies, and its fields are server/cert.go's.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { connect, createServer } from "node:tls";
import { describe, expect, it } from "vitest";
import { CERT_VALIDITY_MS, selfSignedCertificate } from "./self-signed-certificate.ts";

describe("the orchestrator's self-signed certificate", () => {
  it("parses, verifies with its own key and has the node's fields (hostname service URI)", () => {
    const now = new Date("2026-11-27T10:00:00.000Z");
    const { cert, key } = selfSignedCertificate("orch-0.livepeer.svc", now);
    const x = new X509Certificate(cert);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkIssued(x)).toBe(true);
    expect(x.ca).toBe(true);
    expect(x.subject ?? "").toBe("");
    expect(x.subjectAltName).toBe("DNS:orch-0.livepeer.svc");
    expect(x.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]); // Node names ExtKeyUsage keyUsage
    // KeyUsage is not exposed by X509Certificate: its DER (critical; digitalSignature, keyCertSign).
    expect(x.raw.includes(Buffer.from("0603551d0f0101ff040403020284", "hex"))).toBe(true);
    expect(new Date(x.validFrom).getTime()).toBe(now.getTime());
    expect(new Date(x.validTo).getTime()).toBe(now.getTime() + CERT_VALIDITY_MS);
    expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(key).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(x.serialNumber).toMatch(/^[0-9A-F]{2,32}$/);
    // Two certificates never share a key or a serial.
    const other = new X509Certificate(selfSignedCertificate("orch-0.livepeer.svc", now).cert);
    expect(other.serialNumber).not.toBe(x.serialNumber);
    expect(other.publicKey.equals(x.publicKey)).toBe(false);
  });

  it("with an IP address: the DNS SAN as Go writes it, plus an IP SAN (v4 and v6)", () => {
    expect(new X509Certificate(selfSignedCertificate("127.0.0.1").cert).subjectAltName).toBe(
      "DNS:127.0.0.1, IP Address:127.0.0.1",
    );
    expect(new X509Certificate(selfSignedCertificate("::1").cert).subjectAltName).toBe(
      "DNS:::1, IP Address:0:0:0:0:0:0:0:1",
    );
  });

  it("a TLS client that trusts it verifies the server by the IP address", async () => {
    const { cert, key } = selfSignedCertificate("127.0.0.1");
    const server = createServer({ cert, key }, (s) => s.end("ok"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const authorized = await new Promise<boolean>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port, ca: cert }, () => {
          resolve(socket.authorized);
          socket.destroy();
        });
        socket.on("error", reject);
      });
      expect(authorized).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
