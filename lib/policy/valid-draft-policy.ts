import type { DbTx } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Policy } from "./policy-document";
import { policyToolCatalogue } from "./policy-tool-catalogue";
import { checkPolicy } from "./check-policy";

/** A draft that is not valid cannot be tested or dry-run: refused with the problems the validator lists. */
export async function validDraftPolicy(db: DbTx, tenantId: string, document: unknown): Promise<Policy> {
  const tools = await policyToolCatalogue(db, tenantId);
  const result = await checkPolicy(document, { forSave: true, tools });
  if (!result.ok) {
    throw new AppError("invalid_policy", `Fix the draft first: ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"} (Validate lists them).`, 400, { errors: result.errors });
  }
  return result.policy;
}
