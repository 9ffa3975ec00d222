// Loads a package as @kubernetes/client-node itself would resolve it (its own nested copy, if any),
// for the stand-ins that defer a client-node dependency to its first use (slim-client-node.ts).
import { createRequire } from "node:module";

export function requireFromClientNode<T>(specifier: string): T {
  return createRequire(import.meta.resolve("@kubernetes/client-node"))(specifier) as T;
}
