import { spawn } from "node:child_process";
import { once } from "node:events";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { ownerIsGone, processOwner } from "./container-owner";

describe("a sandbox container's owner", () => {
  it("is this process while it runs, and gone once its process has exited", async () => {
    expect(ownerIsGone(processOwner())).toBe(false);
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    await once(child, "spawn");
    const owner = processOwner(child.pid!);
    expect(owner).toMatch(new RegExp(`^${os.hostname()}/${child.pid}/\\d+$`));
    expect(ownerIsGone(owner)).toBe(false);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(ownerIsGone(owner)).toBe(true);
  });

  it("is not this process when the pid is reused by a process started at another time", () => {
    const [host, pid] = processOwner().split("/");
    expect(ownerIsGone(`${host}/${pid}/1`)).toBe(true);
  });

  it("is not known to be gone when it runs on another host, or when there is no label", () => {
    expect(ownerIsGone(`another-host-${os.hostname()}/1/1`)).toBe(false);
    expect(ownerIsGone(undefined)).toBe(false);
    expect(ownerIsGone("garbage")).toBe(false);
  });
});
