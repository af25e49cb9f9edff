/**
 * Runs executeAction in a child process and kills itself (SIGKILL, no clean-up) at a chosen point,
 * to test crash safety for real: `after_claim` (claimed, before the database effect),
 * `after_effect` (effect written, before the transaction commits) or `during_delivery` (the claim
 * committed, a sandbox run or SMTP delivery under way).
 */
import { createDb } from "@/lib/db/client";
import { executeAction } from "@/lib/approvals/execute-action";
import { findTool } from "@/lib/tools/registry";

const [url, tenantId, actionId, payloadHash, mode, toolName] = process.argv.slice(2);
const tool = findTool(toolName ?? "refund_invoice")!;
const apply = tool.apply.bind(tool);
tool.apply = async (ctx, args) => {
  if (mode === "after_claim") process.kill(process.pid, "SIGKILL");
  const applied = await apply(ctx, args);
  if (mode === "after_effect") process.kill(process.pid, "SIGKILL");
  return applied;
};
const deliver = tool.deliver?.bind(tool);
tool.deliver = async (ctx, args) => {
  if (mode === "during_delivery") process.kill(process.pid, "SIGKILL");
  if (!deliver) throw new Error(`${tool.name} delivers nothing`);
  return deliver(ctx, args);
};

const db = createDb(url, { max: 2 });
await executeAction(db, { tenantId, actionId, payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "crash-test" } });
console.log("completed without crashing");
process.exit(0);
