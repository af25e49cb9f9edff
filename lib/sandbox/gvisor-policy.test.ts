// gVisor as an isolation level chosen by policy or by SANDBOX_RUNTIME: what the reviewer approves
// (the spec and its hash) names it, the execution records it, and where gVisor cannot run, code
// that requires it is denied with the reason — never run under a weaker level. Real Docker + runsc;
// a host without them fails here unless SANDBOX_TESTS=skip-docker says to skip.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { refusal } from "@/tests/refusal";
import { revisionHash, type RevisionPayload } from "@/lib/approvals/action-revision";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import type { JsonObject } from "@/lib/canonical/json-value";
import { readEnv } from "@/lib/env";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy, PolicyRule } from "@/lib/policy/policy-document";
import { savePolicy } from "@/lib/policy/save-policy";
import { dockerClient } from "./docker-runner";
import { dockerHasGvisor, GVISOR_KERNEL_RELEASE } from "./gvisor";
import { detectSandbox, runInSandbox } from "./select-runner";
import { buildSpec, defaultLimits } from "./spec";

const SKIP_UNAVAILABLE = readEnv("SANDBOX_TESTS") === "skip-docker";
const gvisorHere = await dockerHasGvisor(dockerClient()).catch(() => false);

const GVISOR_RULE: PolicyRule = {
  id: "high-risk-code-gvisor",
  // Every code action is high by its class (code-exec); the pre-scan's own tags tell code apart.
  when: '"scan.native-code" in ctx.riskTags',
  effect: "require_approval",
  sandbox: "gvisor",
  reason: "Code that reaches native memory runs under gVisor, not in a plain container.",
};

function policyWith(rule: PolicyRule, tool = "run_python"): Policy {
  const { version: _version, ...base } = DEFAULT_POLICY;
  return { ...base, tools: { ...base.tools, [tool]: { rules: [rule, ...(base.tools[tool]?.rules ?? [])] } } };
}

const admin = () => ({ type: "user" as const, id: a.users.admin.id, label: a.users.admin.email });

// `import ctypes` is tagged by the pre-scan (scan.native-code, high), not blocked.
const HIGH_RISK = `import ctypes\nimport platform\nprint(platform.release())\n`;
const LOW_RISK = "print(sum(range(10)))\n";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
beforeAll(async () => {
  await savePolicy(t.db, { tenantId: a.id, baseVersion: 1, document: policyWith(GVISOR_RULE), actor: admin() });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function storedRevision(actionId: string) {
  const action = await t.db.action.findUniqueOrThrow({ where: { id: actionId }, include: { revisions: true } });
  const [rev] = action.revisions;
  const payload: RevisionPayload = {
    tenantId: a.id, tool: action.tool, kind: action.kind, args: null, code: rev.code, language: rev.language,
    sandboxSpec: rev.sandboxSpec as JsonObject | null, revision: rev.revision, policyVersion: rev.policyVersion,
  };
  return { action, rev, payload };
}

describe("the isolation level is part of the approved hash", () => {
  it("the same code under container and under gVisor hashes differently", () => {
    const image = "sha256:" + "ab".repeat(32);
    const base: Omit<RevisionPayload, "sandboxSpec"> = { tenantId: a.id, tool: "run_python", kind: "code", args: null, code: LOW_RISK, language: "python", revision: 1, policyVersion: 2 };
    const container = revisionHash({ ...base, sandboxSpec: buildSpec("container", image, defaultLimits({})) });
    const gvisor = revisionHash({ ...base, sandboxSpec: buildSpec("gvisor", image, defaultLimits({})) });
    expect(container.hash).not.toBe(gvisor.hash);
  });
});

describe("a policy rule that requires gVisor", () => {
  it.skipIf(SKIP_UNAVAILABLE && !gvisorHere)(
    "runs matching code under gVisor: the reviewer's spec and the hash name it, the execution records it; other code stays in a container",
    async () => {
      expect(gvisorHere, "runsc is not registered with Docker (scripts/ensure-system.sh as root)").toBe(true);
      vi.stubEnv("SANDBOX_MODE", "docker");
      const high = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: HIGH_RISK, language: "python" } });
      if (high.state !== "pending") throw new Error(`expected pending, got ${high.state}: ${"reason" in high ? high.reason : ""}`);
      const { action, rev, payload } = await storedRevision(high.actionId);
      expect(rev.sandboxSpec).toMatchObject({ isolation: "gvisor", image: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      expect(rev.policyDecision).toMatchObject({ ruleId: GVISOR_RULE.id, sandbox: "gvisor" });
      expect(revisionHash(payload).hash).toBe(action.payloadHash);

      await decideAction(t.db, { tenantId: a.id, actionId: high.actionId, verdict: "approve", payloadHash: high.payloadHash, reviewer: a.users.reviewer.member });
      const run = await executeAction(t.db, { tenantId: a.id, actionId: high.actionId, payloadHash: high.payloadHash, executor: { type: "requester" }, actor: admin() });
      expect(run).toMatchObject({ state: "succeeded", isolation: "gvisor", result: { stdout: `${GVISOR_KERNEL_RELEASE}\n` } });
      expect(await t.db.execution.findFirstOrThrow({ where: { actionId: high.actionId } })).toMatchObject({ isolation: "gvisor" });

      const low = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: LOW_RISK, language: "python" } });
      if (low.state !== "pending") throw new Error(`expected pending, got ${low.state}`);
      expect((await storedRevision(low.actionId)).rev.sandboxSpec).toMatchObject({ isolation: "container" });
    },
    120_000,
  );

  it("denies matching code with the reason where gVisor cannot run, instead of running it under a weaker sandbox", async () => {
    // A console kept off Docker (bubblewrap only) cannot run gVisor.
    vi.stubEnv("SANDBOX_MODE", "bwrap");
    const high = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: HIGH_RISK, language: "python" } });
    if (high.state !== "denied") throw new Error(`expected denied, got ${high.state}`);
    expect(high.reason).toContain(`Policy rule "${GVISOR_RULE.id}" requires this code to run under gVisor, which cannot run here`);
    expect(high.reason).toContain("SANDBOX_MODE=bwrap");
    const { action, rev, payload } = await storedRevision(high.actionId);
    expect(rev.sandboxSpec).toMatchObject({ isolation: "none" });
    expect(revisionHash(payload).hash).toBe(action.payloadHash);

    // The same console still offers its own sandbox to code the rule does not match.
    const low = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: LOW_RISK, language: "python" } });
    expect(low.state).toBe("pending");
    expect((await storedRevision(low.actionId)).rev.sandboxSpec).toMatchObject({ isolation: "namespace" });
  }, 120_000);

  it("is refused when saved on a tool that runs no code, or on a deny rule", async () => {
    const onRefunds = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 2, document: policyWith({ ...GVISOR_RULE, id: "refund-gvisor" }, "refund_invoice"), actor: admin() }));
    expect(onRefunds).toMatchObject({ code: "invalid_policy" });
    expect(JSON.stringify(onRefunds)).toContain("sandbox applies only to tools that run code");
    const onDeny = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 2, document: policyWith({ ...GVISOR_RULE, id: "deny-gvisor", effect: "deny" }), actor: admin() }));
    expect(JSON.stringify(onDeny)).toContain("sandbox has no effect on a deny rule");
    const unknown = await refusal(savePolicy(t.db, { tenantId: a.id, baseVersion: 2, document: policyWith({ ...GVISOR_RULE, sandbox: "firecracker" } as unknown as PolicyRule), actor: admin() }));
    expect(JSON.stringify(unknown)).toContain("must be gvisor");
  });
});

describe("SANDBOX_RUNTIME=runsc", () => {
  it.skipIf(SKIP_UNAVAILABLE && !gvisorHere)("makes gVisor the level for every run", async () => {
    vi.stubEnv("SANDBOX_RUNTIME", "runsc");
    const d = await detectSandbox({ fresh: true });
    expect(d.available, d.reason).toBe(true);
    expect(d.isolation).toBe("gvisor");
    expect(d.spec).toMatchObject({ isolation: "gvisor" });
    const r = await runInSandbox(d.spec!, "import platform\nprint(platform.release())\n");
    expect(r).toMatchObject({ isolation: "gvisor", exitCode: 0, stdout: `${GVISOR_KERNEL_RELEASE}\n` });
  }, 60_000);

  it("refuses code rather than falling back to bubblewrap when gVisor cannot be used", async () => {
    vi.stubEnv("SANDBOX_RUNTIME", "runsc");
    vi.stubEnv("SANDBOX_MODE", "bwrap");
    const d = await detectSandbox({ fresh: true });
    expect(d).toMatchObject({ available: false, isolation: null, spec: null });
    expect(d.reason).toMatch(/SANDBOX_RUNTIME=runsc needs Docker.*refused/);
  });
});
