// node:http as its CommonJS module object. Importing node:http as an ES module builds a facade
// that reads every export, the lazy WebSocket, CloseEvent and MessageEvent getters included, and
// those load Node's bundled undici: about 14 MB of RSS that the controller never uses. The
// CommonJS object keeps them lazy. Code that runs in the controller takes http from here; types
// can still come from node:http (`import type`). slim-client-node.test.ts fails when something
// in the controller's modules loads undici again.
export const http = process.getBuiltinModule("node:http");
