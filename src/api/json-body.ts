// The API's JSON body parser. JSON.parse keeps a key named "__proto__" as an own property, but
// code that later copies such an object by assignment (`target[key] = value`, Object.assign,
// many validators) would replace the copy's prototype instead (prototype pollution). fastify's
// own parser refuses these bodies too, but says only "not valid JSON"; this one names the key and
// the fix. Only bodies whose text holds "__proto__" or "constructor" are walked (a substring test
// first, as secure-json-parse does).
import { badRequest } from "./errors/http-error.ts";

const SUSPECT = /"(?:__proto__|constructor)"/;

/** The parsed body; throws HttpError 400 (syntax, or a forbidden key, named by its path). */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) {
    throw badRequest("the request body is empty but Content-Type is application/json: send a JSON object");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`the request body is not valid JSON (${(err as Error).message}): fix its syntax`);
  }
  if (SUSPECT.test(text)) {
    const at = forbiddenKey(value, "");
    if (at !== undefined) {
      throw badRequest(
        `the request body has a key '${at}', which the API refuses (it could change an object's prototype): rename the key`,
      );
    }
  }
  return value;
}

/** The path of the first "__proto__" key, or "constructor" object with a "prototype" key, if any. */
function forbiddenKey(value: unknown, path: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key === "__proto__") return here;
    if (key === "constructor" && typeof child === "object" && child !== null && "prototype" in child) {
      return `${here}.prototype`;
    }
    const deeper = forbiddenKey(child, here);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}
