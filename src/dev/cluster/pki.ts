// The control plane's certificates: one CA, the API server's serving certificate, client
// certificates (admin, the API server's kubelet client), kwok's serving certificate, and the
// service-account signing key. ECDSA P-256 keys: generated in milliseconds.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  adminCert: string;
  adminKey: string;
  kubeletClientCert: string;
  kubeletClientKey: string;
  kwokCert: string;
  kwokKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`openssl ${args[0]} failed: ${stderr || (err as Error).message}. Is openssl installed?`);
  }
}

function ecKey(dir: string, name: string): string {
  openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`], dir);
  return path.join(dir, `${name}.key`);
}

function signed(
  dir: string,
  name: string,
  subject: string,
  ext: { sans?: string[]; usage: "server" | "client" | "both" },
): { cert: string; key: string } {
  const key = ecKey(dir, name);
  openssl(["req", "-new", "-key", key, "-subj", subject, "-out", `${name}.csr`], dir);
  const eku = { server: "serverAuth", client: "clientAuth", both: "serverAuth,clientAuth" }[ext.usage];
  const lines = [
    "basicConstraints=CA:FALSE",
    "keyUsage=critical,digitalSignature,keyEncipherment",
    `extendedKeyUsage=${eku}`,
  ];
  if (ext.sans?.length) lines.push(`subjectAltName=${ext.sans.join(",")}`);
  writeFileSync(path.join(dir, `${name}.ext`), `${lines.join("\n")}\n`);
  openssl(
    [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "365",
      "-sha256",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.crt`,
    ],
    dir,
  );
  return { cert: path.join(dir, `${name}.crt`), key };
}

export function generatePki(dir: string): Pki {
  ecKey(dir, "ca");
  openssl(
    [
      "req",
      "-x509",
      "-new",
      "-key",
      "ca.key",
      "-subj",
      "/CN=livepeer-operator-dev-ca",
      "-days",
      "365",
      "-out",
      "ca.crt",
    ],
    dir,
  );
  const apiserver = signed(dir, "apiserver", "/CN=kube-apiserver", {
    usage: "server",
    sans: [
      "IP:127.0.0.1",
      "IP:10.96.0.1",
      "DNS:localhost",
      "DNS:kubernetes",
      "DNS:kubernetes.default",
      "DNS:kubernetes.default.svc",
      "DNS:kubernetes.default.svc.cluster.local",
    ],
  });
  const admin = signed(dir, "admin", "/O=system:masters/CN=kubernetes-admin", { usage: "client" });
  const kubeletClient = signed(dir, "kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client", {
    usage: "client",
  });
  const kwok = signed(dir, "kwok", "/CN=kwok", { usage: "both", sans: ["IP:127.0.0.1", "DNS:localhost"] });
  const saKey = ecKey(dir, "service-account");
  openssl(["ec", "-in", "service-account.key", "-pubout", "-out", "service-account.pub"], dir);
  return {
    dir,
    caCert: path.join(dir, "ca.crt"),
    caKey: path.join(dir, "ca.key"),
    apiserverCert: apiserver.cert,
    apiserverKey: apiserver.key,
    adminCert: admin.cert,
    adminKey: admin.key,
    kubeletClientCert: kubeletClient.cert,
    kubeletClientKey: kubeletClient.key,
    kwokCert: kwok.cert,
    kwokKey: kwok.key,
    serviceAccountKey: saKey,
    serviceAccountPub: path.join(dir, "service-account.pub"),
  };
}

/** Issues another certificate from the control plane's CA (a real kubelet's client and serving certificates). */
export function issueCertificate(
  pki: Pki,
  name: string,
  subject: string,
  ext: { sans?: string[]; usage: "server" | "client" | "both" },
): { cert: string; key: string } {
  return signed(pki.dir, name, subject, ext);
}
