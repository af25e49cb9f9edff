// The work whose cost grows with the input, as pure functions of plain data. They run in the
// compute pool's worker threads (lib/compute/compute-pool.ts), never on a request thread.
import { revisionHash, type RevisionPayload } from "@/lib/approvals/action-revision";
import type { PayloadHash } from "@/lib/canonical/payload-hash";
import { riskTagsFor, type RiskInput } from "@/lib/risk/risk-tags-for";
import type { RiskTag } from "@/lib/risk/risk-tag";
import { scanPython, type ScanResult } from "@/lib/sandbox/prescan";

export type InspectInput = {
  /** Code to pre-scan (code tools), or null. */
  code: string | null;
  /** Absent: the scanner's defaults. */
  bannedModules?: string[];
  risk: Omit<RiskInput, "scanFindings">;
  /** The revision whose hash a decision will bind to. */
  payload: RevisionPayload;
};

export type Inspection = { scan: ScanResult | null; riskTags: RiskTag[]; hash: PayloadHash };

/** The pre-scan, the risk tags (with the scan's findings) and the payload hash of one proposal. */
export async function inspectPayload(input: InspectInput): Promise<Inspection> {
  const scan = input.code === null ? null : await scanPython(input.code, { bannedModules: input.bannedModules });
  const findings = scan ? [...scan.blocked, ...scan.findings] : [];
  const riskTags = riskTagsFor({
    ...input.risk,
    scanFindings: findings.map((f) => ({ rule: f.rule, line: f.line, message: f.message, severity: f.severity })),
  });
  return { scan, riskTags, hash: revisionHash(input.payload) };
}

/** SPEC invariant 2's hash of a stored or new revision. */
export function hashRevision(payload: RevisionPayload): PayloadHash {
  return revisionHash(payload);
}
