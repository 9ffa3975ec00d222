import { describe, expect, it } from "vitest";
import { RunnerArgsError, runnerOptionsFromArgs } from "./runner-args.ts";

const MODEL = ["--pipeline", "text-to-image", "--model-id", "stabilityai/sd-turbo"];

describe("runnerOptionsFromArgs", () => {
  it.each([
    [
      "the runner image's variables",
      [],
      { PIPELINE: "text-to-image", MODEL_ID: "stabilityai/sd-turbo", AUTH_TOKEN: "t" },
      {
        pipeline: "text-to-image",
        modelId: "stabilityai/sd-turbo",
        host: "127.0.0.1",
        port: 8000,
        token: "t",
      },
    ],
    [
      "flags over variables, an address, a cold start in seconds",
      [...MODEL, "--addr", "127.1.0.7:9000", "--cold-start-seconds", "30", "--oom-after", "3"],
      { PIPELINE: "llm", LIVEPEER_SIM_RUNNER_ADDR: "127.0.0.1:1" },
      {
        pipeline: "text-to-image",
        modelId: "stabilityai/sd-turbo",
        host: "127.1.0.7",
        port: 9000,
        coldStartMs: 30_000,
        oomAfter: 3,
      },
    ],
    [
      "GPUs and memory",
      [
        ...MODEL,
        "--gpus",
        "2",
        "--gpu-memory-gib",
        "80",
        "--gpu-memory-used",
        "0.9",
        "--gpu-name",
        "NVIDIA A100",
      ],
      {},
      {
        pipeline: "text-to-image",
        modelId: "stabilityai/sd-turbo",
        host: "127.0.0.1",
        port: 8000,
        gpus: 2,
        gpuMemoryTotal: 80 * 1024 ** 3,
        gpuMemoryUsed: 0.9,
        gpuName: "NVIDIA A100",
      },
    ],
    [
      "every interface inside a pod",
      [...MODEL, "--addr", "0.0.0.0:8000", "--pod-network"],
      {},
      { pipeline: "text-to-image", modelId: "stabilityai/sd-turbo", host: "0.0.0.0", port: 8000 },
    ],
  ])("reads %s", (_name, args, env, expected) => {
    expect(runnerOptionsFromArgs(args, env)).toEqual(expected);
  });

  it.each([
    ["no pipeline", ["--model-id", "a/b"], /--pipeline \(or PIPELINE\) is required/],
    ["no model", ["--pipeline", "text-to-image"], /--model-id \(or MODEL_ID\) is required/],
    ["an address without a port", [...MODEL, "--addr", "127.0.0.1"], /--addr 127.0.0.1: give host:port/],
    ["a public address on a host", [...MODEL, "--addr", "0.0.0.0:8000"], /add --pod-network/],
    [
      "a negative cold start",
      [...MODEL, "--cold-start-seconds=-1"],
      /--cold-start-seconds -1: give seconds >= 0/,
    ],
    [
      "a fraction above 1",
      [...MODEL, "--gpu-memory-used", "85"],
      /--gpu-memory-used 85: give a fraction from 0 to 1/,
    ],
    ["an unknown option", [...MODEL, "--colds-start", "1"], /Unknown option '--colds-start'/],
  ])("refuses %s, naming the option", (_name, args, message) => {
    expect(() => runnerOptionsFromArgs(args, {})).toThrow(RunnerArgsError);
    expect(() => runnerOptionsFromArgs(args, {})).toThrow(message);
  });
});
