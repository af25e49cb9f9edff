import { describe, expect, it } from "vitest";
import { bwrapImageForDigest, rootfsBaseDir, rootfsDirOf } from "./rootfs";
import { runInSandbox } from "./select-runner";
import { buildSpec, defaultLimits } from "./spec";
import { SandboxUnavailableError } from "./types";

const DIGEST = "ab".repeat(32);

describe("the namespace sandbox's rootfs", () => {
  it("is named by the image's layer digest under the rootfs directory", () => {
    expect(bwrapImageForDigest(`sha256:${DIGEST}`)).toBe(`bwrap:${rootfsBaseDir()}/${DIGEST}`);
    expect(() => bwrapImageForDigest("sha256:short")).toThrow(/not a sha256 digest/);
  });

  it("never binds another host directory as the sandbox's /", () => {
    for (const image of ["bwrap:/", "bwrap:/etc", `bwrap:/tmp/${DIGEST}`, `bwrap:${rootfsBaseDir()}/../${DIGEST}`, `bwrap:${rootfsBaseDir()}/current`]) {
      expect(() => rootfsDirOf(image), image).toThrow(SandboxUnavailableError);
    }
  });

  it("refuses a spec approved under the host's python (before the shared rootfs) and says to propose again", async () => {
    expect(() => rootfsDirOf("bwrap:/usr/bin/python3")).toThrow(/host's \/usr\/bin\/python3.*propose it again/);
    const old = buildSpec("namespace", "bwrap:/usr/bin/python3", defaultLimits({}));
    await expect(runInSandbox(old, "print(1)\n")).rejects.toThrow(/propose it again/);
  });

  it("refuses a digest whose rootfs is not extracted, with what to do", () => {
    expect(() => rootfsDirOf(bwrapImageForDigest(DIGEST))).toThrow(/missing \(run scripts\/build-sandbox-image\.sh/);
  });
});
