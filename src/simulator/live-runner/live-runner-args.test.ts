import { describe, expect, it } from "vitest";
import { liveRunnerOptionsFromArgs } from "./live-runner-args.ts";

describe("liveRunnerOptionsFromArgs", () => {
  it("reads a pod's environment alone", () => {
    expect(
      liveRunnerOptionsFromArgs(["--pod-network"], {
        MODEL_ID: "noop",
        AUTH_TOKEN: "t",
        LIVEPEER_SIM_RUNNER_ADDR: "10.1.2.3:8000",
        ORCH_URL: "https://orch:8935",
        ORCH_SECRET: "s",
        RUNNER_URL: "http://10.1.2.3:8000",
        CAPACITY: "2",
        PRICE: "3.5",
        PRICE_UNIT: "hour",
        LIVEPEER_SIM_WARM_UP_SECONDS: "1.5",
      }),
    ).toEqual({
      pipeline: "live-video-to-video",
      modelId: "noop",
      host: "10.1.2.3",
      port: 8000,
      token: "t",
      orchUrl: "https://orch:8935",
      orchSecret: "s",
      runnerUrl: "http://10.1.2.3:8000",
      capacity: 2,
      price: "3.5",
      priceUnit: "hour",
      warmUpMs: 1500,
    });
  });

  it("lets flags win over variables and defaults to a static runner on loopback", () => {
    expect(
      liveRunnerOptionsFromArgs(["--model-id", "noop", "--addr", "127.0.0.1:9000"], { MODEL_ID: "x" }),
    ).toEqual({
      pipeline: "live-video-to-video",
      modelId: "noop",
      host: "127.0.0.1",
      port: 9000,
    });
  });

  it.each([
    [[], {}, "--model-id (or MODEL_ID) is required"],
    [["--model-id", "m", "--pipeline", "text-to-image"], {}, "a live runner serves live-video-to-video"],
    [["--model-id", "m", "--addr", "10.0.0.1:80"], {}, "add --pod-network"],
    [["--model-id", "m", "--orch-url", "https://o:8935"], {}, "--orch-secret (or ORCH_SECRET) is required"],
    [["--model-id", "m", "--orch-url", "o:8935"], { ORCH_SECRET: "s" }, "give the orchestrator's URL"],
    [["--model-id", "m", "--capacity", "0"], {}, "--capacity 0: give a whole number >= 1"],
    [["--model-id", "m", "--price-unit", "day"], {}, "give hour, 720p or fixed"],
    [["--model-id", "m", "--bogus"], {}, "Unknown option '--bogus'"],
  ] as const)("refuses %j %j naming the fix", (args, env, message) => {
    expect(() => liveRunnerOptionsFromArgs([...args], { ...env })).toThrow(message);
  });
});
