import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

// The Python client's own tests (standard library unittest, against a fake server) run with the
// rest of the suite, so `npm test` and CI cover them; against the running app they are proven
// by e2e/clients/python-client.spec.ts.
it("the Python client's unit tests pass", () => {
  const run = spawnSync("python3", ["-m", "unittest", "discover", "-s", "clients/python/tests"], { encoding: "utf8", timeout: 120_000 });
  expect(run.error).toBeUndefined();
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stderr).toMatch(/^Ran \d+ tests/m);
  expect(run.stderr).toMatch(/^OK$/m);
});
