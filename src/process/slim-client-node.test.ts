import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { namesFromGenIndex, STAND_IN_EXPORTS } from "./slim-client-node.ts";

const configJs = fileURLToPath(new URL("./config.js", import.meta.resolve("@kubernetes/client-node")));

describe("client-node without its generated API index", () => {
  it.each([
    [
      "import { createConfiguration, ServerConfiguration, } from './gen/index.js';",
      ["ServerConfiguration", "createConfiguration"],
    ],
    ['import { a as b, c } from "./gen/index.js"', ["a", "c"]],
    ["import { x } from './gen/other.js'", undefined],
  ])("reads the names in %s", (source, names) => {
    expect(namesFromGenIndex(source)).toEqual(names);
  });

  it("covers exactly what the installed client-node's config.js takes from the index", () => {
    // When this fails after a client-node upgrade, the hook stays off (the full index loads):
    // add the new names to client-node-config-deps.ts and STAND_IN_EXPORTS.
    expect(namesFromGenIndex(readFileSync(configJs, "utf8"))).toEqual([...STAND_IN_EXPORTS].sort());
  });

  it("loads KubeConfig without the index, and KubeConfig still authenticates requests", () => {
    const script = `
      import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ load(url, ctx, next) { loaded.push(url); return next(url, ctx); } });
      const { slimClientNode } = await import(${JSON.stringify(new URL("./slim-client-node.ts", import.meta.url).href)});
      const installed = slimClientNode();
      const { KubeConfig } = await import("@kubernetes/client-node/dist/config.js");
      const { RequestContext, HttpMethod } = await import("@kubernetes/client-node/dist/gen/http/http.js");
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "c", server: "https://127.0.0.1:6443", skipTLSVerify: true }],
        users: [{ name: "u", token: "t0ken" }],
        contexts: [{ name: "x", cluster: "c", user: "u" }],
        currentContext: "x",
      });
      const ctx = new RequestContext("https://127.0.0.1:6443/api", HttpMethod.GET);
      await kc.applySecurityAuthentication(ctx);
      console.log(JSON.stringify({
        installed,
        index: loaded.some((u) => u.endsWith("/client-node/dist/gen/index.js")),
        models: loaded.filter((u) => u.includes("/client-node/dist/gen/models/")).length,
        authorization: ctx.getHeaders().Authorization,
      }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      encoding: "utf8",
    });
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({
      installed: true,
      index: false,
      models: 0,
      authorization: "Bearer t0ken",
    });
  });
});
