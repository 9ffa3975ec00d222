import { describe, expect, it } from "vitest";
import { KubeApiError } from "../../kube/api-error.ts";
import { isAlreadyExists, kubeRetryDecision, withKubeRetries } from "./kube-retry.ts";

const api = (status: number, reason: string, message = "refused") =>
  new KubeApiError(status, reason, message, "POST", "/apis/livepeer.org/v1alpha1/webhooks");
const withCode = (code: string) => Object.assign(new Error(`stream failed (${code})`), { code });

describe("which API server failures the webhook API retries itself", () => {
  it.each<[string, unknown, boolean]>([
    [
      "429 from API Priority and Fairness",
      api(429, "TooManyRequests", "Too many requests, please try again later."),
      true,
    ],
    ["503 ServiceUnavailable", api(503, "ServiceUnavailable"), true],
    [
      "504 Timeout",
      api(504, "Timeout", "the server was unable to return a response in the time allotted"),
      true,
    ],
    ["500 etcd request timed out", api(500, "InternalError", "etcdserver: request timed out"), true],
    ["500 etcd leader changed", api(500, "InternalError", "etcdserver: leader changed"), true],
    ["an HTTP/2 stream reset (REFUSED_STREAM)", withCode("ERR_HTTP2_STREAM_ERROR"), true],
    ["the HTTP/2 connection going away", withCode("ERR_HTTP2_GOAWAY_SESSION"), true],
    ["a reset connection", withCode("ECONNRESET"), true],
    ["an answer's body cut off (Premature close)", withCode("ERR_STREAM_PREMATURE_CLOSE"), true],
    ["no answer in time", Object.assign(new Error("timed out"), { name: "TimeoutError" }), true],
    ["a 500 that is not a timeout (a bug, an admission webhook)", api(500, "InternalError", "boom"), false],
    ["409 Conflict (the update loop re-reads instead)", api(409, "Conflict"), false],
    ["409 AlreadyExists", api(409, "AlreadyExists"), false],
    ["422 Invalid (the client's to fix)", api(422, "Invalid"), false],
    ["403 Forbidden (RBAC: ours to fix)", api(403, "Forbidden"), false],
    ["404 NotFound", api(404, "NotFound"), false],
    ["a programming error", new TypeError("x is undefined"), false],
  ])("%s -> retry %s", (_name, err, retry) => {
    const d = kubeRetryDecision(err);
    expect(d.retry).toBe(retry);
    expect(d.why.length).toBeGreaterThan(0);
  });

  it("tells AlreadyExists from other conflicts", () => {
    expect(isAlreadyExists(api(409, "AlreadyExists"))).toBe(true);
    expect(isAlreadyExists(api(409, "Conflict"))).toBe(false);
    expect(isAlreadyExists(withCode("ECONNRESET"))).toBe(false);
  });
});

describe("withKubeRetries", () => {
  const noDelay = { delay: () => 0 };

  it("tries again after a transient failure and returns the later success", async () => {
    const seen: number[] = [];
    const retried: string[] = [];
    const r = await withKubeRetries(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 3) throw api(429, "TooManyRequests");
        return "created";
      },
      { ...noDelay, onRetry: (why) => retried.push(why) },
    );
    expect(r).toBe("created");
    expect(seen).toEqual([1, 2, 3]);
    expect(retried).toEqual([
      "the API server asked to slow down (429)",
      "the API server asked to slow down (429)",
    ]);
  });

  it("throws a final failure at once", async () => {
    let tries = 0;
    const refused = api(422, "Invalid");
    await expect(
      withKubeRetries(async () => {
        tries++;
        throw refused;
      }, noDelay),
    ).rejects.toBe(refused);
    expect(tries).toBe(1);
  });

  it("gives up after its attempts with the last error", async () => {
    let tries = 0;
    await expect(
      withKubeRetries(
        async () => {
          tries++;
          throw withCode("ERR_HTTP2_STREAM_ERROR");
        },
        { ...noDelay, attempts: 3 },
      ),
    ).rejects.toMatchObject({ code: "ERR_HTTP2_STREAM_ERROR" });
    expect(tries).toBe(3);
  });

  it("starts no try that would end past the time budget", async () => {
    let tries = 0;
    await expect(
      withKubeRetries(
        async () => {
          tries++;
          throw api(503, "ServiceUnavailable");
        },
        { attempts: 10, budgetMs: 50, delay: () => 40 },
      ),
    ).rejects.toMatchObject({ status: 503 });
    expect(tries).toBe(2);
  });
});
