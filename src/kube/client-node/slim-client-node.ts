// @kubernetes/client-node's KubeConfig module (dist/config.js) loads large things the operator
// never uses: the generated API index (dist/gen/index.js: every API class and model, about 15 MB
// of heap and 40 MB of RSS) for two helpers that build generated API clients; the npm undici
// (30 MB of RSS) for the dispatchers of client-node's own transport; and, through an ES module
// import of node:http (its own, and agent-base's under socks-proxy-agent), Node's bundled undici
// (14 MB, see builtin-http.ts). The operator's KubeClient speaks HTTP itself and takes only
// KubeConfig's authentication. This resolve hook hands config.js stand-ins: a module with just
// the two helpers, modules that load undici and socks-proxy-agent on first use, and node:http's
// CommonJS object. Each redirect is installed only when the importer takes nothing but names its
// stand-in exports, so a client-node release that needs more gets the real module (more memory,
// same behaviour) instead of failing to start.
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const UNDICI_STAND_IN = { file: "client-node-undici", exports: ["Agent", "ProxyAgent", "fetch"] } as const;

/**
 * The redirects: which client-node module (relative to its dist/) imports which specifier, the
 * stand-in module, and the names it exports ("default" for a default import).
 */
export const STAND_INS = [
  {
    importer: "config.js",
    specifier: "./gen/index.js",
    file: "client-node-config-deps",
    exports: ["ServerConfiguration", "createConfiguration"],
  },
  { importer: "config.js", specifier: "undici", ...UNDICI_STAND_IN },
  // Reached through the stand-in's createConfiguration (gen/configuration.js).
  { importer: "gen/http/isomorphic-fetch.js", specifier: "undici", ...UNDICI_STAND_IN },
  {
    importer: "config.js",
    specifier: "socks-proxy-agent",
    file: "client-node-socks",
    exports: ["SocksProxyAgent"],
  },
  { importer: "config.js", specifier: "node:http", file: "client-node-http", exports: ["default"] },
] as const;

/**
 * The names `source` imports from `specifier` ("default" for a default import), or undefined if it
 * has no such import (or one this does not read, such as a namespace import).
 */
export function importedNames(source: string, specifier: string): string[] | undefined {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const m = new RegExp(
    `import\\s*([\\w$]+\\s*,\\s*)?(?:\\{([^}]*)\\}\\s*|([\\w$]+)\\s+)from\\s*['"]${quoted}['"]`,
  ).exec(source);
  if (!m) return undefined;
  const names = (m[2] ?? "")
    .split(",")
    .map((n) =>
      n
        .trim()
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter(Boolean);
  if (m[1] || m[3]) names.push("default");
  return names.sort();
}

let installed: string[] | undefined;

/** Installs the hook once per process; returns the redirects in place, as "importer -> specifier". */
export function slimClientNode(): string[] {
  if (installed !== undefined) return installed;
  installed = [];
  const here = fileURLToPath(import.meta.url);
  const redirects = new Map<string, string>();
  for (const standIn of STAND_INS) {
    let importerUrl: string;
    let names: string[] | undefined;
    try {
      importerUrl = new URL(`./${standIn.importer}`, import.meta.resolve("@kubernetes/client-node")).href;
      names = importedNames(readFileSync(fileURLToPath(importerUrl), "utf8"), standIn.specifier);
    } catch {
      continue;
    }
    if (!names?.every((n) => (standIn.exports as readonly string[]).includes(n))) continue;
    const file = path.join(path.dirname(here), `${standIn.file}${path.extname(here)}`);
    redirects.set(`${importerUrl}\u0000${standIn.specifier}`, new URL(`file://${file}`).href);
    installed.push(`${standIn.importer} -> ${standIn.specifier}`);
  }
  if (redirects.size === 0) return installed;
  registerHooks({
    resolve(specifier, context, next) {
      const url = redirects.get(`${context.parentURL}\u0000${specifier}`);
      return url ? { url, shortCircuit: true } : next(specifier, context);
    },
  });
  return installed;
}
