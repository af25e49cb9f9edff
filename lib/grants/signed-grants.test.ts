import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { TestUser } from "@/tests/factories";
import { refusal } from "@/tests/refusal";
import { SoftAuthenticator } from "@/tests/soft-authenticator";
import { startSession } from "@/lib/auth/start-session";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { proposeAction, type ProposeInput } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { finishPasskeyRegistration } from "@/lib/passkeys/finish-passkey-registration";
import { relyingPartyOf } from "@/lib/passkeys/relying-party";
import { startPasskeyRegistration } from "@/lib/passkeys/start-passkey-registration";
import { startSignedApproval } from "@/lib/passkeys/start-signed-approval";
import type { GrantTerms } from "@/lib/grants/grant-terms";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { verifiableExportLines } from "@/lib/audit/verifiable-export";

// A grant needs what its action needs: here two approvals, each signed with a passkey over a
// receipt that binds the grant's terms (cast-vote.ts; docs/DESIGN.md, "Standing grants").

const ORIGIN = "https://console.countersign.test";
const rp = relyingPartyOf([ORIGIN]);
const t = setUpTestDatabase();
const a = setUpTestTenant(t, {
  policy: {
    ...DEFAULT_POLICY,
    tools: {
      ...DEFAULT_POLICY.tools,
      send_email: { rules: [{ id: "send-email-signed", effect: "require_approval", quorum: 2, eligibleRoles: ["reviewer"], signature: "required", reason: "Two signed approvals" }] },
    },
  },
});
const sessions = new Map<string, string>();
const keys = new Map<string, SoftAuthenticator>();
let agent: Extract<ProposeInput["requester"], { type: "api_key" }>;

const TERMS: GrantTerms = {
  constraint: 'emailDomains(args).all(d, d == "partner.example")', description: "every recipient at partner.example",
  maxCalls: 5, totalArgument: null, maxTotal: null, ttlSeconds: 3600,
};

beforeAll(async () => {
  for (const u of [a.users.reviewer, a.users.reviewer2]) {
    sessions.set(u.id, (await startSession(t.db, { userId: u.id, method: "credentials", clientAddress: null, userAgent: null })).id);
    const authenticator = new SoftAuthenticator(ORIGIN);
    const options = await startPasskeyRegistration(t.db, { tenantId: a.id, user: { id: u.id, email: u.email, name: u.email }, sessionId: sessions.get(u.id)!, relyingParty: rp });
    await finishPasskeyRegistration(t.db, {
      owner: { id: u.id, email: u.email, sessionId: sessions.get(u.id)!, tenantIds: [a.id] }, name: "Laptop", response: authenticator.register(options), relyingParty: rp,
    });
    keys.set(u.id, authenticator);
  }
  const { apiKey } = await createApiKey(t.db, { tenantId: a.id, name: "signed-mailer", allowedTools: ["send_email"], createdById: a.users.admin.id });
  agent = { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
});

async function email() {
  const p = await proposeAction(t.db, { tenantId: a.id, requester: agent, tool: "send_email", args: { to: "ops@partner.example", subject: "Report", body: "Attached." } });
  if (p.state !== "pending") throw new Error(`expected pending, got ${p.state}`);
  return p;
}

/** A vote by `u`, signed over a receipt that binds `signed` (grant terms, or none), carrying `voted`. */
async function vote(u: TestUser, p: { actionId: string; payloadHash: string }, signed: GrantTerms | null, voted: GrantTerms | null = signed) {
  const started = await startSignedApproval(t.db, { tenantId: a.id, userId: u.id, sessionId: sessions.get(u.id)!, actionId: p.actionId, payloadHash: p.payloadHash, relyingParty: rp, grant: signed });
  const response = keys.get(u.id)!.assert(started.options.challenge);
  return decideAction(t.db, {
    tenantId: a.id, actionId: p.actionId, verdict: "approve", payloadHash: p.payloadHash, reviewer: { ...u.member, sessionId: sessions.get(u.id)! },
    assertion: { sessionId: sessions.get(u.id)!, response, relyingParty: rp }, grant: voted,
  });
}

describe("a grant under a rule that requires two signed approvals", () => {
  it("is made only by two passkey signatures that bind the same terms; an unsigned vote, or one signed without the terms, does not make it", async () => {
    const first = await email();
    // One signed approval with the grant: the action waits for the second, and nothing is granted yet.
    expect(await vote(a.users.reviewer, first, TERMS)).toMatchObject({ status: "pending", approvals: 1, quorum: 2 });
    // The second approves the action alone: the action is approved, but votes with other terms do not combine.
    expect(await vote(a.users.reviewer2, first, null)).toMatchObject({ status: "approved", grant: null });
    expect(await t.db.grant.count({ where: { tenantId: a.id } })).toBe(0);

    const second = await email();
    expect(await refusal(decideAction(t.db, {
      tenantId: a.id, actionId: second.actionId, verdict: "approve", payloadHash: second.payloadHash, reviewer: a.users.reviewer.member, grant: TERMS,
    }))).toMatchObject({ code: "signature_required" });
    expect(await vote(a.users.reviewer, second, TERMS)).toMatchObject({ status: "pending" });
    // Signed without the grant, voted with it: the signature does not cover what the vote asks.
    expect(await refusal(vote(a.users.reviewer2, second, null, TERMS))).toMatchObject({ code: "signature_mismatch" });
    expect(await t.db.grant.count({ where: { tenantId: a.id } })).toBe(0);
    const made = await vote(a.users.reviewer2, second, TERMS);
    expect(made).toMatchObject({ status: "approved", grant: { id: expect.any(String) } });
    const grant = await t.db.grant.findUniqueOrThrow({ where: { id: made.grant!.id } });
    expect(grant).toMatchObject({ signed: true, approvedBy: [a.users.reviewer.id, a.users.reviewer2.id] });
    const signature = await t.db.decisionSignature.findFirstOrThrow({ where: { decision: { actionId: second.actionId, reviewerId: a.users.reviewer2.id, void: false } } });
    expect(JSON.parse(signature.receipt)).toMatchObject({ grant: grant.termsHash });

    const call = await proposeAction(t.db, { tenantId: a.id, requester: agent, tool: "send_email", args: { to: "ap@partner.example", subject: "Report", body: "Again." } });
    expect(call).toMatchObject({ state: "allowed", grant: { id: grant.id, callsLeft: 4 } });

    // The offline verifier checks each receipt's grant against its vote's event.
    type Verifier = { verifyExport: (file: string) => Promise<{ ok: boolean; signedApprovals: number }>; signedApprovalProblem: (leaf: unknown) => string | null };
    const verifier = (await import(/* @vite-ignore */ pathToFileURL(path.join(process.cwd(), "scripts", "verify-audit-export.mjs")).href)) as Verifier;
    expect(await checkpointAuditLog(t.db, a.id)).toMatchObject({ state: "signed" });
    let text = "";
    for await (const line of verifiableExportLines(t.db, { tenantId: a.id, filters: {} })) text += line;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "countersign-grants-")), "export.jsonl");
    writeFileSync(file, text);
    expect(await verifier.verifyExport(file)).toMatchObject({ ok: true, signedApprovals: 4 });
    const recorded = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: a.id, actionId: second.actionId, type: "decision.recorded", reviewerId: a.users.reviewer2.id } });
    const leaf = { ...recorded, tenantId: a.id, data: recorded.data as { grant: Record<string, unknown> } };
    expect(verifier.signedApprovalProblem(leaf)).toBeNull();
    expect(verifier.signedApprovalProblem({ ...leaf, data: { ...leaf.data, grant: { ...leaf.data.grant, termsHash: "0".repeat(64) } } })).toMatch(/receipt's grant/);
  });
});
