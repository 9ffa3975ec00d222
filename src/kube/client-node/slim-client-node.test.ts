import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importedNames, STAND_INS } from "./slim-client-node.ts";

const clientNodeDist = import.meta.resolve("@kubernetes/client-node");

describe("client-node without its generated API index and the npm undici", () => {
  it.each([
    [
      "import { createConfiguration, ServerConfiguration, } from './gen/index.js';",
      "./gen/index.js",
      ["ServerConfiguration", "createConfiguration"],
    ],
    ['import { a as b, c } from "./gen/index.js"', "./gen/index.js", ["a", "c"]],
    ["import { x } from './gen/other.js'", "./gen/index.js", undefined],
    ["import { x } from './gen/index_js'", "./gen/index.js", undefined],
    [
      "import { Agent as UndiciAgent, ProxyAgent as UndiciProxyAgent, } from 'undici';",
      "undici",
      ["Agent", "ProxyAgent"],
    ],
    ["import { fetch } from 'undici-types';", "undici", undefined],
    ["import http from 'node:http';", "node:http", ["default"]],
    ["import http, { Agent } from 'node:http';", "node:http", ["Agent", "default"]],
    ["import * as http from 'node:http';", "node:http", undefined],
    ["import {a}from'x'", "x", ["a"]],
  ])("reads the names in %s", (source, specifier, names) => {
    expect(importedNames(source, specifier)).toEqual(names);
  });

  it.each(STAND_INS.map((s) => [`${s.importer} -> ${s.specifier}`, s] as const))(
    "covers what the installed client-node's %s takes",
    (_, standIn) => {
      // When this fails after a client-node upgrade, that redirect stays off (the real module
      // loads): add the new names to the stand-in module and to STAND_INS.
      const importer = fileURLToPath(new URL(`./${standIn.importer}`, clientNodeDist));
      const names = importedNames(readFileSync(importer, "utf8"), standIn.specifier);
      expect(names?.length).toBeGreaterThan(0);
      expect(standIn.exports).toEqual(expect.arrayContaining(names!));
    },
  );

  it("loads KubeConfig without the index or undici; it still authenticates, and undici loads when a dispatcher is built", () => {
    const script = `
      import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ load(url, ctx, next) { loaded.push(url); return next(url, ctx); } });
      const undiciLoaded = () => loaded.some((u) => u.includes("/node_modules/undici/"));
      const { slimClientNode } = await import(${JSON.stringify(new URL("./slim-client-node.ts", import.meta.url).href)});
      const installed = slimClientNode();
      const { KubeConfig } = await import("@kubernetes/client-node/dist/config.js");
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "c", server: "https://127.0.0.1:6443", skipTLSVerify: true }],
        users: [{ name: "u", token: "t0ken" }],
        contexts: [{ name: "x", cluster: "c", user: "u" }],
        currentContext: "x",
      });
      const opts = { headers: {} };
      await kc.applyToHTTPSOptions(opts);
      const undiciBeforeDispatcher = undiciLoaded();
      const bundledUndici = process.moduleLoadList.some((m) => m.includes("internal/deps/undici"));
      // What a generated API client does per request: builds an undici dispatcher.
      const headers = {};
      let dispatcher;
      await kc.applySecurityAuthentication({
        setHeaderParam: (k, v) => { headers[k] = v; },
        setDispatcher: (d) => { dispatcher = d; },
      });
      const { Agent } = await import("undici");
      console.log(JSON.stringify({
        installed,
        index: loaded.some((u) => u.endsWith("/client-node/dist/gen/index.js")),
        models: loaded.filter((u) => u.includes("/client-node/dist/gen/models/")).length,
        authorization: opts.headers.Authorization,
        rejectUnauthorized: opts.rejectUnauthorized,
        undiciBeforeDispatcher,
        bundledUndici,
        dispatcherIsUndiciAgent: dispatcher instanceof Agent,
        dispatcherAuthorization: headers.Authorization,
      }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      encoding: "utf8",
    });
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({
      installed: STAND_INS.map((s) => `${s.importer} -> ${s.specifier}`),
      index: false,
      models: 0,
      authorization: "Bearer t0ken",
      rejectUnauthorized: false,
      undiciBeforeDispatcher: false,
      bundledUndici: false,
      dispatcherIsUndiciAgent: true,
      dispatcherAuthorization: "Bearer t0ken",
    });
  });

  it("the controller command loads neither the npm undici nor Node's bundled one", () => {
    // Each costs 14-30 MB of RSS per controller; a new ES module import of node:http anywhere in
    // the controller's modules brings the bundled one back (use src/process/builtin-http.ts).
    const script = `
      const { slimClientNode } = await import(${JSON.stringify(new URL("./slim-client-node.ts", import.meta.url).href)});
      slimClientNode();
      await import(${JSON.stringify(new URL("../../cli/commands/controller.ts", import.meta.url).href)});
      const { createRequire } = await import("node:module");
      const cache = createRequire(import.meta.url).cache;
      console.log(JSON.stringify({
        npm: Object.keys(cache).filter((k) => k.includes("/node_modules/undici/")).length,
        bundled: process.moduleLoadList.filter((m) => m.includes("undici")),
      }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      encoding: "utf8",
    });
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({ npm: 0, bundled: [] });
  });
});
