// The self-signed certificate an orchestrator makes at each start for its service port, as
// go-livepeer's server/cert.go genCert does: ECDSA P-256, a random 128-bit serial, valid one year
// from now, IsCA, KeyUsage CertSign|DigitalSignature, ExtKeyUsage ServerAuth, the service URI's
// hostname as the one DNS name, an empty subject (so the SAN extension is critical, as Go marks
// it). Node's crypto signs but cannot build certificates, so the DER is written here.
// One difference: for an IP address hostname the node puts the address only in the DNS SAN; the
// simulator also adds an IP SAN, because gRPC's own hostname check (used by the official Python
// SDK, which overrides the authority with the certificate's DNS SAN) compares an IP-looking name
// only with IP SANs.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";

export interface TlsCredentials {
  /** PEM "CERTIFICATE". */
  cert: string;
  /** PEM "EC PRIVATE KEY" (SEC 1), as the node writes key.pem. */
  key: string;
}

/** server/cert.go certExpiry: 8765 hours. */
export const CERT_VALIDITY_MS = 8765 * 3600 * 1000;

export function selfSignedCertificate(host: string, now = new Date()): TlsCredentials {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const ecdsaWithSha256 = sequence(oid("1.2.840.10045.4.3.2"));
  const emptyName = sequence();
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serialNumber()),
    ecdsaWithSha256,
    emptyName,
    sequence(time(now), time(new Date(now.getTime() + CERT_VALIDITY_MS))),
    emptyName,
    spki,
    explicit(3, sequence(...extensions(host, spki))),
  );
  const signature = sign("sha256", tbs, privateKey); // DER ECDSA-Sig-Value
  const der = sequence(tbs, ecdsaWithSha256, bitString(signature));
  return {
    cert: pem("CERTIFICATE", der),
    key: privateKey.export({ type: "sec1", format: "pem" }).toString(),
  };
}

function extensions(host: string, spki: Buffer): Buffer[] {
  // The subject key id Go makes for a CA: SHA-1 of the public key's bit string.
  const publicKeyBits = spki.subarray(spki.length - 65);
  const names = [tagged(0x82, Buffer.from(host, "utf8"))]; // dNSName [2], as Go puts any host
  const ip = ipBytes(host);
  if (ip) names.push(tagged(0x87, ip)); // iPAddress [7]
  return [
    // KeyUsage: digitalSignature (bit 0) and keyCertSign (bit 5); 2 unused bits.
    extension("2.5.29.15", true, tagged(0x03, Buffer.from([0x02, 0x84]))),
    extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))),
    extension("2.5.29.19", true, sequence(tagged(0x01, Buffer.from([0xff])))),
    extension("2.5.29.14", false, tagged(0x04, createHash("sha1").update(publicKeyBits).digest())),
    extension("2.5.29.17", true, sequence(...names)),
  ];
}

function ipBytes(host: string): Buffer | undefined {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare) === 4) return Buffer.from(bare.split(".").map(Number));
  if (isIP(bare) === 6) {
    const [head = "", tail = ""] = bare.split("::");
    const parts = (s: string) => (s === "" ? [] : s.split(":"));
    const h = parts(head);
    const t = parts(tail);
    const groups = bare.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
    return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, "0"), "hex")));
  }
  return undefined;
}

function serialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f || 0x01; // positive and minimal
  return serial;
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [tagged(0x01, Buffer.from([0xff]))] : []), tagged(0x04, value));
}

// DER: tag, length, contents.
function tagged(tag: number, contents: Buffer): Buffer {
  const n = contents.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, contents]);
}

function sequence(...items: Buffer[]): Buffer {
  return tagged(0x30, Buffer.concat(items));
}

function explicit(n: number, inner: Buffer): Buffer {
  return tagged(0xa0 + n, inner);
}

function integer(bytes: Buffer): Buffer {
  return tagged(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function bitString(bytes: Buffer): Buffer {
  return tagged(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split(".").map(Number);
  const out = [a * 40 + b];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    out.push(...base128);
  }
  return tagged(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5), to the second. */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14); // YYYYMMDDHHMMSS
  return d.getUTCFullYear() < 2050
    ? tagged(0x17, Buffer.from(`${iso.slice(2)}Z`, "ascii"))
    : tagged(0x18, Buffer.from(`${iso}Z`, "ascii"));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
