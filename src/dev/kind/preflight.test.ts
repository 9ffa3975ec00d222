// The kind tier says exactly why it cannot run, and when it needs the sandbox docker wrapper.
import { describe, expect, it } from "vitest";
import { kindVerdict } from "./preflight.ts";

const IMAGE = "kindest/node:v1.36.3";
const OK = { dockerCli: "20.10.24", nodeImage: IMAGE };
const CAPS =
  "docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: unable to apply caps: operation not permitted: unknown.";

describe("whether the kind tier can run", () => {
  it.each([
    [{ nodeImage: IMAGE }, /no docker CLI on PATH: install Docker/],
    [
      { ...OK, daemonError: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock" },
      /the Docker daemon does not answer \(Cannot connect/,
    ],
    [
      {
        ...OK,
        nodeImageError:
          'Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host',
      },
      /no kind node image: kindest\/node:v1.36.3 could not be had \(.*\); with LPO_KIND_NODE_IMAGE unset the image is built here/,
    ],
    [
      {
        ...OK,
        privilegedError:
          "docker: Error response from daemon: OCI runtime create failed: no space left on device",
      },
      /docker run --privileged kindest\/node:v1.36.3 fails: .*no space left/,
    ],
  ])("refuses %j, saying why and how to skip on purpose", (facts, why) => {
    const verdict = kindVerdict(facts);
    expect(verdict.run).toBe(false);
    if (!verdict.run) {
      expect(verdict.why).toMatch(why);
      expect(verdict.why).toContain("LPO_SKIP_KIND=1");
    }
  });

  it("runs kind unwrapped where --privileged works, and through the sandbox wrapper where runc refuses its caps", () => {
    expect(kindVerdict(OK)).toEqual({ run: true, sandboxDocker: false });
    expect(kindVerdict({ ...OK, privilegedError: CAPS })).toEqual({ run: true, sandboxDocker: true });
  });
});
