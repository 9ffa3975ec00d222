// @kubernetes/client-node's KubeConfig module (dist/config.js) imports the generated API index
// (dist/gen/index.js: every API class and model, about 15 MB of heap and 40 MB of RSS) for two
// helpers that build generated API clients. The operator never builds one: its KubeClient speaks
// HTTP itself and takes only KubeConfig's authentication. This resolve hook hands config.js a
// module with just those two helpers. It is installed only when config.js imports exactly those
// names from the index, so a client-node release that needs more gets the whole index (more
// memory, same behaviour) instead of failing to start.
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** What the stand-in module (client-node-config-deps) exports. */
export const STAND_IN_EXPORTS = ["ServerConfiguration", "createConfiguration"] as const;

/** The names config.js imports from ./gen/index.js, or undefined if it imports none that way. */
export function namesFromGenIndex(configSource: string): string[] | undefined {
  const m = /import\s*\{([^}]*)\}\s*from\s*['"]\.\/gen\/index\.js['"]/.exec(configSource);
  if (!m) return undefined;
  return m[1]!
    .split(",")
    .map((n) =>
      n
        .trim()
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter(Boolean)
    .sort();
}

let installed: boolean | undefined;

/** Installs the hook once per process; returns whether it is in place. */
export function slimClientNode(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  let configUrl: string;
  try {
    configUrl = new URL("./config.js", import.meta.resolve("@kubernetes/client-node")).href;
    const names = namesFromGenIndex(readFileSync(fileURLToPath(configUrl), "utf8"));
    if (names?.join() !== [...STAND_IN_EXPORTS].sort().join()) return false;
  } catch {
    return false;
  }
  const here = fileURLToPath(import.meta.url);
  const standIn = path.join(path.dirname(here), `client-node-config-deps${path.extname(here)}`);
  const standInUrl = new URL(`file://${standIn}`).href;
  registerHooks({
    resolve(specifier, context, next) {
      if (specifier === "./gen/index.js" && context.parentURL === configUrl) {
        return { url: standInUrl, shortCircuit: true };
      }
      return next(specifier, context);
    },
  });
  installed = true;
  return true;
}
