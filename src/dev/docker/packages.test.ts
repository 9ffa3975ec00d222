// Installing docker.io must not leave a dockerd of the machine's running: only new ones are ours to stop.
import { describe, expect, it } from "vitest";
import { newDaemons } from "./packages.ts";

describe("the dockerds that appeared while installing docker.io", () => {
  it.each([
    ["", "", []],
    ["", "812 /usr/sbin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock\n", [812]],
    ["77 dockerd --data-root /srv/d\n", "77 dockerd --data-root /srv/d\n", []],
    [
      "77 dockerd --data-root /srv/d\n",
      "77 dockerd --data-root /srv/d\n901 /usr/sbin/dockerd -H fd://\n",
      [901],
    ],
    ["77 dockerd\n", "", []],
    ["garbage\n", "x y\n", []],
  ])("before %j, after %j: %j", (before, after, expected) => {
    expect(newDaemons(before, after)).toEqual(expected);
  });
});
