import { AppError } from "@/lib/errors";
import type { ToolDefinition } from "@/lib/tools/tool";
import { cancelInvoice } from "@/lib/tools/cancel-invoice";
import { getDataset } from "@/lib/tools/get-dataset";
import { getInvoice } from "@/lib/tools/get-invoice";
import { lookupCustomer } from "@/lib/tools/lookup-customer";
import { refundInvoice } from "@/lib/tools/refund-invoice";
import { runPython } from "@/lib/tools/run-python";
import { sendEmail } from "@/lib/tools/send-email";

/** Every tool agents may propose. Adding a tool: one file, one line here, one policy entry. */
export const TOOLS: readonly ToolDefinition[] = [lookupCustomer, getInvoice, getDataset, sendEmail, cancelInvoice, refundInvoice, runPython];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export function requireTool(name: string): ToolDefinition {
  const tool = byName.get(name);
  if (!tool) throw new AppError("unknown_tool", `There is no tool named “${name}”. Known tools: ${[...byName.keys()].join(", ")}.`, 400);
  return tool;
}
