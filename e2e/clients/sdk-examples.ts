/**
 * Running the TypeScript client's examples as documented — the real agent SDKs, a local
 * OpenAI-compatible model server (tests/fake-openai-server.ts) and the running app — for the
 * e2e/clients/*-sdk specs.
 */
import { expect } from "@playwright/test";
import type { Action } from "@/lib/generated/prisma/client";
import { ClientProcess } from "@/e2e/clients/client-process";
import { e2eDb } from "@/e2e/support/runtime";
import type { Agent } from "@/e2e/api/agent-fixtures";
import { toolCallsMade, toolOutputsSent, type FakeOpenAI } from "@/tests/fake-openai-server";

export type ExampleFile = "openai-agents-needs-approval.ts" | "ai-sdk-tool-approval.ts" | "langgraph-interrupt.ts";

/** `node --import tsx clients/typescript/examples/<file> "<prompt>"`, with the environment the example's header documents. */
export function runExample(file: ExampleFile, prompt: string, setup: { baseURL: string; agent: Agent; model: FakeOpenAI; env?: Record<string, string> }): ClientProcess {
  return new ClientProcess(process.execPath, ["--import", "tsx", `clients/typescript/examples/${file}`, prompt], {
    COUNTERSIGN_URL: setup.baseURL,
    COUNTERSIGN_API_KEY: setup.agent.secret,
    OPENAI_BASE_URL: setup.model.baseURL,
    OPENAI_API_KEY: "sk-local-model-server",
    OPENAI_AGENTS_DISABLE_TRACING: "1",
    ...setup.env,
  });
}

/** Waits until the example has proposed an action in the tenant in the given state (it prints the review link then). */
export async function proposedAction(example: ClientProcess, tenantId: string, status: Action["status"] = "pending"): Promise<Action> {
  const [, id] = await example.printed(/waits for a reviewer: \S+\/actions\/([0-9a-f-]{36})/);
  const action = await e2eDb().action.findFirstOrThrow({ where: { id, tenantId } });
  if (action.status !== status) throw new Error(`action ${id} is ${action.status}, not ${status}`);
  return action;
}

/** The one tool call the model made, and what the SDK sent back to it as the call's output. */
export function theCall(model: FakeOpenAI): { id: string; output: string | undefined } {
  const calls = toolCallsMade(model);
  expect(calls).toHaveLength(1);
  return { id: calls[0].id, output: toolOutputsSent(model).get(calls[0].id) };
}

/** An invoice's refunds and status: the effects the examples' tools have. */
export async function invoiceEffects(tenantId: string, number: string) {
  const invoice = await e2eDb().invoice.findFirstOrThrow({ where: { tenantId, number }, include: { refunds: true } });
  return { status: invoice.status, refunded: invoice.amountRefundedMinor, refunds: invoice.refunds.length };
}
