// bubblewrap's rlimits set by dash's ulimit (one exec fewer than prlimit) must be exactly the
// limits prlimit would set: checked by reading them back from a process started the same way.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dashUlimits } from "./bwrap-runner";
import { buildSpec, defaultLimits } from "./spec";

const MB = 1024 * 1024;
const spec = buildSpec("namespace", "bwrap:/nowhere", { ...defaultLimits({}), memoryBytes: 200 * MB, fileSizeBytes: 3 * MB, pidsLimit: 40, openFiles: 50, timeoutMs: 7500 });
const dash = ["/usr/bin/dash", "/bin/dash"].find((p) => existsSync(p));

/** The limits a process started by `dash -c '<ulimits> && exec cat /proc/self/limits'` has, soft and hard. */
function limitsUnder(script: string): Record<string, [string, string]> {
  const text = execFileSync(dash as string, ["-c", `${script} && exec cat /proc/self/limits`]).toString();
  const rows: Record<string, [string, string]> = {};
  for (const line of text.split("\n").slice(1)) {
    // Fixed columns: the name in the first 26 characters, then soft, hard, units.
    const [soft, hard] = line.slice(26).trim().split(/\s+/);
    if (soft && hard) rows[line.slice(0, 26).trim()] = [soft, hard];
  }
  return rows;
}

describe("dash ulimits for bubblewrap", () => {
  it.skipIf(!dash)("set exactly the spec's limits, soft and hard, with address space only when no cgroup holds memory", () => {
    const withCgroup = limitsUnder(dashUlimits(spec, 0, "cgroup") as string);
    expect(withCgroup["Max processes"]).toEqual(["40", "40"]);
    expect(withCgroup["Max file size"]).toEqual([String(3 * MB), String(3 * MB)]);
    expect(withCgroup["Max open files"]).toEqual(["50", "50"]);
    expect(withCgroup["Max core file size"]).toEqual(["0", "0"]);
    expect(withCgroup["Max cpu time"]).toEqual(["9", "9"]); // ceil(7.5 s) + 1
    expect(withCgroup["Max address space"]).toEqual(["unlimited", "unlimited"]);
    const withoutCgroup = limitsUnder(dashUlimits(spec, 5, "rlimit-as") as string);
    expect(withoutCgroup["Max address space"]).toEqual([String(200 * MB), String(200 * MB)]);
    expect(withoutCgroup["Max processes"]).toEqual(["45", "45"]); // the user's existing tasks added, as with prlimit
  });

  it("leaves a limit dash cannot express exactly to prlimit", () => {
    expect(dashUlimits({ ...spec, fileSizeBytes: 3 * MB + 1 }, 0, "cgroup")).toBeNull();
    expect(dashUlimits({ ...spec, memoryBytes: 200 * MB + 1 }, 0, "rlimit-as")).toBeNull();
    expect(dashUlimits({ ...spec, memoryBytes: 200 * MB + 1 }, 0, "cgroup")).not.toBeNull(); // the cgroup holds memory
  });
});
