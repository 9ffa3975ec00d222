// The Link header of a paged answer (the webhook list, a webhook's log).
import type { FastifyRequest } from "fastify";

/** The next page's URL: the same query with the cursor replaced (relative if Host is unusable). */
export function nextLink(request: FastifyRequest, cursor: string): string {
  let url: URL;
  try {
    url = new URL(request.url, `${request.protocol}://${request.host}`);
  } catch {
    const relative = new URL(request.url, "http://placeholder");
    relative.searchParams.set("cursor", cursor);
    return `<${relative.pathname}${relative.search}>; rel="next"`;
  }
  url.searchParams.set("cursor", cursor);
  return `<${url.toString()}>; rel="next"`;
}
