// What a program in the root needs from the host to reach the network as the host does: its DNS
// settings for every run, and for pip the host's pip settings and trust. Values are carried
// (bind mounts at the same paths, PIP_* and proxy variables passed through), never copied into
// the cache, so the cached root holds no host secret, and a changed setting applies at once.
// Why the trust matters: where the machine reaches PyPI through an intercepting proxy, the
// proxy's CA is in the host's CA bundle (or pip's `cert`), not in Debian's; pip in the root would
// fail with CERTIFICATE_VERIFY_FAILED without it.
import type { Bind, EnvVar } from "./in-root.ts";

export interface HostView {
  env: Record<string, string | undefined>;
  home: string;
  /** Whether a host path exists (file or folder). */
  exists(file: string): boolean;
  /** A host file's text, undefined when unreadable. */
  read(file: string): string | undefined;
}

export interface CarriedSettings {
  binds: Bind[];
  env: EnvVar[];
  /** What was carried, by name (paths and variable names only): for the log. */
  names: string[];
}

/** The root's home: programs in the root run as root. */
const ROOT_HOME = "/root";

/** Name resolution as on the host (loopback names in /etc/hosts included). */
export function dnsSettings(host: Pick<HostView, "exists">): CarriedSettings {
  const binds = ["/etc/resolv.conf", "/etc/hosts"]
    .filter((f) => host.exists(f))
    .map((f) => ({ source: f, target: f }));
  return { binds, env: [], names: binds.map((b) => b.source) };
}

const PROXY_VARIABLES = ["http_proxy", "https_proxy", "no_proxy", "all_proxy"].flatMap((n) => [
  n,
  n.toUpperCase(),
]);
const TRUST_VARIABLES = ["REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"];
/** pip settings whose values are host paths (find-links may list several, or URLs). */
const PATH_SETTINGS = /^\s*(cert|client-cert|find-links)\s*[=:]\s*(.+?)\s*$/gm;
const PATH_VARIABLES = new Set(["PIP_CERT", "PIP_CLIENT_CERT", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"]);

/** Absolute host paths named in a setting's value ("file://" URLs included, other URLs not). */
function pathsIn(value: string): string[] {
  return value
    .split(/\s+/)
    .map((w) => w.replace(/^file:\/\//, ""))
    .filter((w) => w.startsWith("/"));
}

/** pip's settings on the host: its config files, PIP_* variables, proxies and trust, at the same paths. */
export function pipSettings(host: HostView): CarriedSettings {
  const binds = new Map<string, Bind>();
  const bind = (source: string, target = source) => {
    if (host.exists(source)) binds.set(target, { source, target });
  };
  const configHome = host.env.XDG_CONFIG_HOME || `${host.home}/.config`;
  // pip's own search order: site files, then the user's, then PIP_CONFIG_FILE.
  const configFiles: [string, string][] = [
    ["/etc/pip.conf", "/etc/pip.conf"],
    ["/etc/xdg/pip/pip.conf", "/etc/xdg/pip/pip.conf"],
    [`${configHome}/pip/pip.conf`, `${ROOT_HOME}/.config/pip/pip.conf`],
    [`${host.home}/.pip/pip.conf`, `${ROOT_HOME}/.pip/pip.conf`],
  ];
  for (const [source, target] of configFiles) {
    if (!host.exists(source)) continue;
    bind(source, target);
    for (const m of (host.read(source) ?? "").matchAll(PATH_SETTINGS))
      for (const p of pathsIn(m[2]!)) bind(p);
  }
  const env: EnvVar[] = [];
  const names = Object.keys(host.env)
    .filter((n) => n.startsWith("PIP_") || PROXY_VARIABLES.includes(n) || TRUST_VARIABLES.includes(n))
    .filter((n) => host.env[n] !== undefined && host.env[n] !== "")
    .sort();
  for (const name of names) {
    const value = host.env[name]!;
    env.push({ name, value, fromHost: true });
    if (PATH_VARIABLES.has(name) || TRUST_VARIABLES.includes(name)) for (const p of pathsIn(value)) bind(p);
  }
  // Debian's pip trusts the system bundle: the host's, which is the machine's trust policy.
  bind("/etc/ssl/certs/ca-certificates.crt");
  const all = [...binds.values()];
  return { binds: all, env, names: [...all.map((b) => b.source), ...names] };
}
