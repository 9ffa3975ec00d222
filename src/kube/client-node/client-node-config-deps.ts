// What @kubernetes/client-node's config.js takes from its generated API index, and nothing else
// (see slim-client-node.ts).
export { createConfiguration } from "@kubernetes/client-node/dist/gen/configuration.js";
export { ServerConfiguration } from "@kubernetes/client-node/dist/gen/servers.js";
