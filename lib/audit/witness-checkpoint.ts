import type { Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { auditOrigin } from "@/lib/audit/audit-keys";
import { rememberAlarm } from "@/lib/audit/audit-state-file";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { consistencyProof } from "@/lib/audit/transparency/merkle";
import { parseVerifierKey, verifyNote } from "@/lib/audit/transparency/signed-note";
import { requestCosignature } from "@/lib/audit/transparency/witness-client";

/** The configured witnesses' base URLs and verifier keys (AUDIT_WITNESS_URLS, AUDIT_WITNESS_KEYS). */
export function configuredWitnesses(): { urls: string[]; keys: string[] } {
  const list = (value: string | undefined) => (value ?? "").split(",").map((v) => v.trim()).filter(Boolean);
  return { urls: list(readEnv("AUDIT_WITNESS_URLS")), keys: list(readEnv("AUDIT_WITNESS_KEYS")) };
}

/**
 * Sends a signed checkpoint to the witnesses with a consistency proof from the size each last
 * cosigned; returns the note with their cosignatures (checked against AUDIT_WITNESS_KEYS when set).
 * One down or refusing is logged and skipped (the next checkpoint asks again). One that cosigned a
 * larger tree or another history means a rollback or fork: alarmed, shown on /audit until resolved.
 */
export async function witnessCheckpoint(
  db: Db,
  tenantId: string,
  input: { note: string; previousSize: number; size: number },
): Promise<{ note: string; witnesses: string[] }> {
  const { urls, keys } = configuredWitnesses();
  if (urls.length === 0) return { note: input.note, witnesses: [] };
  const subtrees = storedSubtrees(db, tenantId);
  const proofFrom = (oldSize: number) => (oldSize > 0 && oldSize < input.size ? consistencyProof(oldSize, input.size, subtrees) : Promise.resolve([]));
  const lines: string[] = [];
  const names: string[] = [];
  for (const url of urls) {
    let oldSize = Math.min(input.previousSize, input.size);
    let outcome = await requestCosignature(url, { oldSize, consistencyProof: await proofFrom(oldSize), note: input.note });
    if (outcome.kind === "conflict" && outcome.witnessSize <= input.size) {
      oldSize = outcome.witnessSize;
      outcome = await requestCosignature(url, { oldSize, consistencyProof: await proofFrom(oldSize), note: input.note });
    }
    if (outcome.kind === "cosigned") {
      const candidate = input.note + outcome.lines.join("");
      if (keys.length > 0) {
        try {
          if (verifyNote(candidate, keys.map(parseVerifierKey)).verified.length === 0) throw new Error("no configured witness key signed it");
        } catch (error) {
          console.error(`[countersign] witness ${url} answered a cosignature that does not verify: ${(error as Error).message}`);
          continue;
        }
      }
      lines.push(...outcome.lines);
      names.push(...outcome.lines.map((line) => line.slice(2).split(" ")[0]));
    } else if (outcome.kind === "conflict") {
      const message = `Witness ${url} has co-signed ${outcome.witnessSize} entries of this log, more than its ${input.size}: the log was rolled back or forked.`;
      console.error(`[countersign] witness ${url} has co-signed ${outcome.witnessSize} entries of tenant ${tenantId}'s audit log, more than its ${input.size}: the log was rolled back or forked.`);
      rememberAlarm(auditOrigin(tenantId), "witness", [{ problem: "rolled_back", seq: String(input.size + 1), message }]);
    } else if (outcome.kind === "refused" && outcome.status === 422) {
      // The witness holds a history this checkpoint does not extend: another root for a size it co-signed.
      const message = `Witness ${url} refused the checkpoint of ${input.size} entries as inconsistent with the history it co-signed (${outcome.message}): the log was forked or rewritten.`;
      console.error(`[countersign] tenant ${tenantId}: ${message}`);
      rememberAlarm(auditOrigin(tenantId), "witness", [{ problem: "forked", message }]);
    } else {
      console.error(`[countersign] witness ${url} did not co-sign tenant ${tenantId}'s checkpoint at ${input.size}: ${outcome.kind === "refused" ? `${outcome.status} ${outcome.message}` : outcome.message}`);
    }
  }
  return { note: input.note + lines.join(""), witnesses: [...new Set(names)] };
}
