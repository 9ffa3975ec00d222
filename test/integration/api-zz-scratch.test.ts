import { afterAll, beforeAll, it } from "vitest";
import { call, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { testNamespace } from "./support/cluster.ts";
let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
beforeAll(async () => { await installWebhookCrd(); ns = await testNamespace("api-scratch"); api = await startTestApi(ns.name); });
afterAll(async () => { await api?.close(); await ns?.remove(); });
it("times", async () => {
  const token = await api.token();
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    const c = await call(api.url, "POST", "/webhook", { token, body: { name: "a", url: "https://e.com/x", sharedSecret: "abc" } });
    const id = (c.json as any).id;
    console.log("create", c.status, (performance.now() - t).toFixed(1)); t = performance.now();
    const g = await call(api.url, "GET", `/webhook/${id}`, { token });
    console.log("get", g.status, (performance.now() - t).toFixed(1)); t = performance.now();
    const u = await call(api.url, "PUT", `/webhook/${id}`, { token, body: { name: "b", url: "https://e.com/y", sharedSecret: "new" } });
    console.log("put", u.status, (performance.now() - t).toFixed(1), u.text.slice(0, 200)); t = performance.now();
    const d = await call(api.url, "DELETE", `/webhook/${id}`, { token });
    console.log("delete", d.status, (performance.now() - t).toFixed(1)); t = performance.now();
  }
  console.log(api.logs.filter(l => !l.includes('"level":20')).slice(0, 20).join(""));
});
