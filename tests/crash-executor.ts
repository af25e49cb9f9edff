/**
 * Runs executeAction in a child process and kills itself (SIGKILL, no clean-up) at a chosen point,
 * to test crash recovery for real: `after_claim` (before the effect) or `after_effect` (before
 * the outcome is recorded).
 */
import { createDb } from "@/lib/db/client";
import { executeAction } from "@/lib/approvals/execute-action";
import { findTool } from "@/lib/tools/registry";

const [url, tenantId, actionId, payloadHash, mode] = process.argv.slice(2);
const tool = findTool("refund_invoice")!;
const original = tool.execute.bind(tool);
tool.execute = async (...args) => {
  if (mode === "after_claim") process.kill(process.pid, "SIGKILL");
  const outcome = await original(...args);
  if (mode === "after_effect") process.kill(process.pid, "SIGKILL");
  return outcome;
};

const db = createDb(url, { max: 2 });
await executeAction(db, { tenantId, actionId, payloadHash, actor: { type: "system", label: "crash-test" } });
console.log("completed without crashing");
process.exit(0);
