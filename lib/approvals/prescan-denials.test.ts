import { afterEach, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { driveUntilIdle } from "@/tests/task-driver";
import type { ChatMessage, ChatModel } from "@/lib/agent/model";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { editAction } from "@/lib/approvals/edit-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { revisionHash } from "@/lib/approvals/action-revision";
import type { JsonObject } from "@/lib/canonical/json-value";
import { startTask } from "@/lib/tasks/start-task";

/**
 * Code the pre-scan blocks is a decision, not bad input: every way in (an agent's API key, a
 * member, the planner) gets `denied` with the scan's reason, recorded with the sandbox spec its
 * hash covers — also when no sandbox could run it anyway.
 */

const t = setUpTestDatabase();
const a = setUpTestTenant(t);
afterEach(() => {
  vi.unstubAllEnvs();
});

const BLOCKED = [
  { code: "import os\nprint(os.listdir('/'))\n", says: 'imports banned module "os"' },
  { code: "exec('print(1)')\n", says: "uses exec()" },
  { code: "m = __import__('subprocess')\n", says: "uses __import__()" },
];

async function apiRequester() {
  const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: `prescan-${Math.random().toString(36).slice(2, 8)}`, allowedTools: ["run_python"], createdById: a.users.admin.id });
  return { type: "api_key" as const, apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
}

async function expectRecordedDenial(actionId: string) {
  const action = await t.db.action.findUniqueOrThrow({ where: { id: actionId }, include: { revisions: true } });
  expect(action.status).toBe("denied");
  const [revision] = action.revisions;
  expect(revision.sandboxSpec).not.toBeNull();
  // The hash a denial records is the one its stored payload gives.
  expect(revisionHash({
    tenantId: a.id, tool: action.tool, kind: action.kind, args: null, code: revision.code, language: revision.language,
    sandboxSpec: revision.sandboxSpec as JsonObject, revision: revision.revision, policyVersion: revision.policyVersion,
  }).hash).toBe(action.payloadHash);
}

describe("code the pre-scan blocks", () => {
  it.each(BLOCKED)("is denied with the scan's reason, for an API key and for a member: $says", async ({ code, says }) => {
    for (const requester of [await apiRequester(), a.requester]) {
      // Both forms an agent may send: the code body, and run_python as a tool call without its default.
      for (const args of [{ code, language: "python" }, { code }]) {
        const outcome = await proposeAction(t.db, { tenantId: a.id, requester, tool: "run_python", args });
        expect(outcome).toMatchObject({ state: "denied", reason: expect.stringContaining("blocked before review"), riskLevel: "critical" });
        if (outcome.state !== "denied") throw new Error("expected denied");
        expect(outcome.reason).toContain(says);
        await expectRecordedDenial(outcome.actionId);
      }
    }
  });

  it("still names what the scan found when no sandbox is available (the agent can fix its code, not the host)", async () => {
    vi.stubEnv("SANDBOX_MODE", "none");
    const outcome = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "import os\n", language: "python" } });
    if (outcome.state !== "denied") throw new Error(`expected denied, got ${outcome.state}`);
    expect(outcome.reason).toMatch(/^The code was blocked before review: line 1: imports banned module "os"/);
    expect(outcome.reason).toContain("SANDBOX_MODE=none");
    await expectRecordedDenial(outcome.actionId);
  });

  it("denies a reviewer's edit in the console that adds blocked code, as a new revision with the reason", async () => {
    const proposed = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "print(1)\n", language: "python" } });
    if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
    const edited = await editAction(t.db, {
      tenantId: a.id, actionId: proposed.actionId, editor: a.users.reviewer.member, payloadHash: proposed.payloadHash, args: { code: "import os\n", language: "python" },
    });
    expect(edited).toMatchObject({ revision: 2, status: "denied" });
    const action = await t.db.action.findUniqueOrThrow({ where: { id: proposed.actionId } });
    expect(action.statusReason).toContain('imports banned module "os"');
  });

  it("reaches the planner's model as a blocked tool result with the reason, and the run goes on", async () => {
    const seen: ChatMessage[][] = [];
    const model: ChatModel = {
      id: "scripted",
      async complete(input) {
        seen.push(input.messages);
        if (seen.length === 1) {
          return { provider: "scripted", model: "s", content: null, toolCalls: [{ id: "call_1", name: "run_python", argumentsText: JSON.stringify({ code: "import os\nos.system('id')\n" }) }] };
        }
        return { provider: "scripted", model: "s", content: "I could not run that.", toolCalls: [] };
      },
    };
    const { taskId } = await startTask(t.db, {
      tenantId: a.id, requester: { userId: a.users.requester.id, label: a.users.requester.email }, instruction: "List the files on the host", planner: "scripted",
    });
    await driveUntilIdle(t.db, model);
    const task = await t.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(task.status).toBe("completed");
    const toolMessage = seen[1].find((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toMatch(/blocked before review.*imports banned module \\?"os\\?"/);
    const [action] = await t.db.action.findMany({ where: { taskId } });
    expect(action.status).toBe("denied");
  });
});
