import { readFileSync, writeFileSync } from "node:fs";
import { dump } from "js-yaml";

const b64 = (file: string) => readFileSync(file).toString("base64");

export interface KubeconfigUser {
  clientCert?: string;
  clientKey?: string;
  token?: string;
}

/** Renders a kubeconfig for one cluster and user; certificates are embedded so it can be copied. */
export function renderKubeconfig(
  server: string,
  caCert: string,
  user: KubeconfigUser,
  name = "livepeer-dev",
): string {
  const u: Record<string, string> = {};
  if (user.clientCert && user.clientKey) {
    u["client-certificate-data"] = b64(user.clientCert);
    u["client-key-data"] = b64(user.clientKey);
  }
  if (user.token) u.token = user.token;
  return dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "certificate-authority-data": b64(caCert) } }],
    users: [{ name, user: u }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

export function writeKubeconfig(file: string, server: string, caCert: string, user: KubeconfigUser): void {
  writeFileSync(file, renderKubeconfig(server, caCert, user), { mode: 0o600 });
}
