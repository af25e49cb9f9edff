import { runCompute } from "@/lib/compute/compute-pool";
import type { PolicyToolCatalogue } from "./policy-tool-catalogue";
import type { PolicyValidationResult } from "./validate-policy";

/**
 * validatePolicy on the compute pool: parsing and type-checking every rule's condition grows with
 * the document (a 256 KB policy held the request thread for hundreds of milliseconds), so it never
 * runs on a request thread. For a save (`tools` given), the rules are checked against the tenant's
 * tools, code tools included; a stored version (`forSave: false`) is read as it was saved. A
 * document past the pool's CPU budget is refused as `too_complex`.
 */
export function checkPolicy(document: unknown, options: { forSave: true; tools: PolicyToolCatalogue } | { forSave: false }): Promise<PolicyValidationResult> {
  return runCompute("checkPolicy", { document, tools: options.forSave ? options.tools : null }, { what: "policy" });
}
