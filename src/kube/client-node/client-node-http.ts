// node:http for @kubernetes/client-node's config.js without the ES module facade that loads
// Node's bundled undici (see builtin-http.ts and slim-client-node.ts).
import { http } from "../../process/builtin-http.ts";

export default http;
