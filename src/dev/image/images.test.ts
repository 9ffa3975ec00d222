import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dockerImportChanges, operatorImage, simulatorImage } from "./images.ts";
import { elfProblem, nodeMajor } from "./node-runtime.ts";

const COMMIT = "a6eb370de37ff9f7ee099468e6d86293f88caa48";

describe("image specs", () => {
  it("the operator image runs the CLI with Node 24 as 65532 in /app: the chart passes only the subcommand", () => {
    const { repository, config } = operatorImage("0.1.0", COMMIT);
    expect(repository).toBe("livepeer-operator");
    expect(config).toMatchObject({
      entrypoint: ["/usr/local/bin/node", "/app/dist/cli/main.js"],
      cmd: ["help"],
      user: "65532:65532",
      workingDir: "/app",
    });
    expect(config.env).toContain("NODE_ENV=production");
  });

  it("the simulator image runs node-sim on the pod's own addresses: node pods pass only go-livepeer flags", () => {
    const { repository, config } = simulatorImage("0.1.0", COMMIT);
    expect(repository).toBe("livepeer-node-simulator");
    expect(config.entrypoint).toEqual([
      "/usr/local/bin/node",
      "/app/dist/cli/main.js",
      "node-sim",
      "--pod-network",
    ]);
    expect(config.cmd).toBeUndefined();
    expect(config.labels?.["livepeer.org/simulated"]).toBe("true");
  });

  it("docker import gets the same config as --change instructions", () => {
    expect(dockerImportChanges(operatorImage("0.1.0", COMMIT).config)).toEqual([
      'ENTRYPOINT ["/usr/local/bin/node","/app/dist/cli/main.js"]',
      'CMD ["help"]',
      'ENV PATH="/usr/local/bin:/usr/bin:/bin"',
      'ENV NODE_ENV="production"',
      "WORKDIR /app",
      "USER 65532:65532",
      'LABEL "org.opencontainers.image.title"="livepeer-operator"',
      'LABEL "org.opencontainers.image.version"="0.1.0"',
      `LABEL "org.opencontainers.image.revision"="${COMMIT}"`,
      'LABEL "org.opencontainers.image.description"="livepeer-operator: controller, webhook API and tools"',
    ]);
  });
});

describe("the Dockerfile (for registries) describes the same operator image", () => {
  const dockerfile = readFileSync(new URL("../../../Dockerfile", import.meta.url), "utf8");
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const instruction = (name: string) =>
    finalStage
      .split("\n")
      .filter((l) => l.startsWith(`${name} `))
      .map((l) => l.slice(name.length + 1).trim());

  it("copies only the root filesystem the registry-less build unpacks, onto nothing", () => {
    expect(finalStage).toMatch(/^\nFROM scratch\n/);
    expect(instruction("COPY")).toEqual(["--from=build /rootfs/ /"]);
    expect(dockerfile).toContain("RUN node src/dev/image/build.ts --out /tmp/archives --rootfs /rootfs");
  });

  it("has the same entrypoint, command, user, working directory and environment", () => {
    const { config } = operatorImage("0.1.0", COMMIT);
    expect(instruction("ENTRYPOINT").map((v) => JSON.parse(v))).toEqual([config.entrypoint]);
    expect(instruction("CMD").map((v) => JSON.parse(v))).toEqual([config.cmd]);
    expect(instruction("USER")).toEqual([config.user]);
    expect(instruction("WORKDIR")).toEqual([config.workingDir]);
    expect(instruction("ENV").flatMap((v) => v.split(/\s+/))).toEqual(config.env);
  });
});

describe("Node runtime checks", () => {
  const elf = (machine: number) => {
    const b = Buffer.alloc(64);
    b.writeUInt32BE(0x7f454c46, 0);
    b.writeUInt16LE(machine, 18);
    return b;
  };

  it.each([
    [elf(0x3e), "x64", undefined],
    [elf(0xb7), "arm64", undefined],
    [elf(0xb7), "x64", "is built for ELF machine 0xb7, not x64"],
    [Buffer.from('#!/bin/sh\nexec node "$@"\n'.padEnd(64)), "x64", "is not an ELF executable"],
  ])("ELF header check %#", (header, arch, problem) => {
    expect(elfProblem(header, arch)).toBe(problem);
  });

  it("reads the major version", () => {
    expect(nodeMajor("v24.21.0\n")).toBe(24);
    expect(() => nodeMajor("24")).toThrow("'24' is not a Node.js version");
  });
});
