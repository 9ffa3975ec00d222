import { describe, expect, it } from "vitest";
import {
  lockfileOutOfSync,
  markerValid,
  releaseImages,
  releasePaths,
  releaseTag,
} from "./previous-release.ts";

const commit = "a6eb370de37ff9f7ee099468e6d86293f88caa48";
const release = { version: "0.1.0", commit };

describe("the previous release's build", () => {
  it("lives in the cache keyed by its full commit", () => {
    expect(releasePaths(commit, "/c")).toEqual({
      dir: `/c/releases/${commit}`,
      source: `/c/releases/${commit}/source`,
      chart: `/c/releases/${commit}/source/deploy/helm/livepeer-operator`,
      images: `/c/releases/${commit}/images`,
      marker: `/c/releases/${commit}/built.json`,
    });
  });

  it.each(["a6eb370", "HEAD", `${commit}-dirty`, ""])("refuses commit %j, naming the fix", (c) => {
    expect(() => releasePaths(c, "/c")).toThrow(/not a full 40-hex git commit.*git rev-parse/);
  });

  it("tags its images with version and short commit, never the plain version a working tree uses", () => {
    expect(releaseTag(release)).toBe("0.1.0-a6eb370");
    expect(releaseImages(release, "/i")).toEqual({
      operator: { ref: "livepeer-operator:0.1.0-a6eb370", archive: "/i/livepeer-operator_0.1.0-a6eb370.tar" },
      simulator: {
        ref: "livepeer-node-simulator:0.1.0-a6eb370",
        archive: "/i/livepeer-node-simulator_0.1.0-a6eb370.tar",
      },
    });
  });

  it("trusts a cache entry only when its marker names this commit and these images", () => {
    const images = releaseImages(release, "/i");
    const marker = (over: object = {}) =>
      JSON.stringify({
        format: 1,
        commit,
        operator: images.operator.ref,
        simulator: images.simulator.ref,
        ...over,
      });
    expect(markerValid(marker(), commit, images)).toBe(true);
    expect(markerValid(undefined, commit, images)).toBe(false);
    expect(markerValid("{", commit, images)).toBe(false);
    expect(markerValid(marker({ format: 0 }), commit, images)).toBe(false);
    expect(markerValid(marker({ commit: "b".repeat(40) }), commit, images)).toBe(false);
    expect(markerValid(marker({ operator: "livepeer-operator:0.1.0" }), commit, images)).toBe(false);
  });

  it("knows npm ci's refusal of an out-of-sync lockfile from other failures", () => {
    expect(
      lockfileOutOfSync(
        "npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync.",
      ),
    ).toBe(true);
    expect(lockfileOutOfSync("npm error code ENOTFOUND")).toBe(false);
  });
});
