// The kind tier says exactly why it cannot run, and when it needs the sandbox docker wrapper.
import { describe, expect, it } from "vitest";
import { dockerChoice, kindVerdict } from "./preflight.ts";

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
      /no kind node image: kindest\/node:v1.36.3 could not be had \(.*\); with LPO_KIND_NODE_IMAGE unset kind's stock image .* is pulled where the Docker can, else the image is built here/,
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

describe("whose Docker the kind tier uses", () => {
  const HERE = { defaultAnswers: false, root: true, debian: true, netnsTools: true };
  it.each([
    [
      { ...HERE, dockerHost: "tcp://10.0.0.5:2376" },
      { use: "user", why: "DOCKER_HOST=tcp://10.0.0.5:2376" },
    ],
    [{ ...HERE, dockerHost: "unix:///run/user/1000/docker.sock", root: false }, { use: "user" }],
    [
      { ...HERE, defaultAnswers: true },
      { use: "user", why: "the docker CLI's default daemon answers" },
    ],
    [{ ...HERE, defaultAnswers: true, root: false, debian: false }, { use: "user" }],
    [HERE, { use: "private" }],
    [{ ...HERE, dockerHost: "" }, { use: "private" }],
  ])("%j: %j", (facts, choice) => {
    expect(dockerChoice(facts)).toMatchObject(choice);
  });

  it.each([
    [{ ...HERE, root: false }, /does not answer\), and the project starts a Docker of its own only as root/],
    [
      { ...HERE, debian: false },
      /not a Debian-based machine .* install Docker and start it, or set DOCKER_HOST/,
    ],
    [{ ...HERE, netnsTools: false }, /'ip' or 'nsenter' is missing .* apt-get install iproute2 util-linux/],
  ])("cannot run with %j: says why, what to do, and how to skip", (facts, why) => {
    const choice = dockerChoice(facts);
    expect(choice.use).toBe("none");
    if (choice.use === "none") {
      expect(choice.why).toMatch(why);
      expect(choice.why).toContain("LPO_SKIP_KIND=1");
    }
  });
});
