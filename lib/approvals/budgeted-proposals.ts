import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { sqlTransaction, type Queryable } from "@/lib/db/sql";
import { createWriteBatcher, type WriteBatcher } from "@/lib/db/write-batcher";
import { lockBudgets, readBudgetTotals, readBudgetTotalsAndGrantsVersion, type BudgetTotalQuery } from "@/lib/db/statements/actions/budget-totals";
import { writeProposals, type ProposalGrant, type ProposalRow, type ProposalWritten } from "@/lib/db/statements/actions/write-proposals";
import { lockGrants } from "@/lib/db/statements/grants/lock-grants";
import { rejudgeWithBudgets, type JudgeInput, type Judgement } from "@/lib/approvals/judge-payload";
import { budgetTermKey, type BudgetTerm, type BudgetTotalsInput, type RuleBudgetTerm } from "@/lib/policy/policy-budgets";
import type { Policy } from "@/lib/policy/policy-document";
import { policyBudgetTerms, type BudgetLine } from "@/lib/policy/evaluate-policy";

/** Who a call's budgets are counted for: its API key, else its member; and its task. */
export type BudgetParty = { tenantId: string; apiKeyId: string | null; userId: string | null; taskId: string | null };

type Scope = { name: string; apiKeyId: string | null; userId: string | null; taskId: string | null };

/** The scope a term counts for this party: "key" and "requester" are the key, else the member; "task" outside a task is the requester. */
function scopeOf(term: BudgetTerm, party: BudgetParty): Scope {
  // A recorded call whose requester is gone counts as no one's: the nil id matches no action.
  const userId = party.userId ?? "00000000-0000-0000-0000-000000000000";
  const requester: Scope = party.apiKeyId
    ? { name: `key:${party.apiKeyId}`, apiKeyId: party.apiKeyId, userId: null, taskId: null }
    : { name: `user:${userId}`, apiKeyId: null, userId, taskId: null };
  if (term.by === "tenant") return { name: "tenant", apiKeyId: null, userId: null, taskId: null };
  if (term.by === "task" && party.taskId) return { name: `task:${party.taskId}`, apiKeyId: null, userId: null, taskId: party.taskId };
  return requester;
}

type Read = { lockKeys: string[]; queries: Map<string, BudgetTotalQuery> };

/** The locks and totals a call's terms need (`into` gathers them for a batch). */
function readsFor(terms: readonly BudgetTerm[], party: BudgetParty, into: Read = { lockKeys: [], queries: new Map() }): Read {
  for (const term of terms) {
    const scope = scopeOf(term, party);
    into.lockKeys.push(`${party.tenantId}:${term.tool}:${scope.name}`);
    const id = `${budgetTermKey(term)}@${scope.name}`;
    into.queries.set(id, { id, windowSeconds: term.windowSeconds, tool: term.tool, argument: term.argument, apiKeyId: scope.apiKeyId, userId: scope.userId, taskId: scope.taskId });
  }
  return into;
}

/** What the call adds to a term's total if it is counted: 1, or its integer argument. */
function contribution(term: BudgetTerm, tool: string, args: JsonObject): bigint {
  if (term.tool !== tool) return 0n;
  if (term.argument === null) return 1n;
  const value = args[term.argument];
  return typeof value === "number" && Number.isFinite(value) ? BigInt(Math.trunc(value)) : 0n;
}

/**
 * Takes the locks of `terms` for `party` and reads their totals (a revision's own action not
 * counted): for a revision, inside the transaction that writes it.
 */
export async function readLockedBudgets(
  q: Queryable,
  input: { party: BudgetParty; terms: readonly BudgetTerm[]; excludeActionId: string | null },
): Promise<BudgetTotalsInput> {
  const reads = readsFor(input.terms, input.party);
  await lockBudgets(q, reads.lockKeys);
  const totals = await readBudgetTotals(q, { tenantId: input.party.tenantId, excludeActionId: input.excludeActionId, totals: [...reads.queries.values()] });
  return totalsForCall(input.terms, input.party, totals);
}

function totalsForCall(terms: readonly BudgetTerm[], party: BudgetParty, totals: ReadonlyMap<string, string | bigint>): BudgetTotalsInput {
  const out: BudgetTotalsInput = {};
  for (const term of terms) out[budgetTermKey(term)] = String(totals.get(`${budgetTermKey(term)}@${scopeOf(term, party).name}`) ?? 0);
  return out;
}

/** The budget lines of a judged call: each total as it was before the call, and after it if it counts. */
export function budgetLines(terms: ReadonlyArray<RuleBudgetTerm>, totals: BudgetTotalsInput, counted: boolean, tool: string, args: JsonObject): BudgetLine[] {
  const seen = new Map<string, BudgetLine>();
  for (const term of terms) {
    const key = budgetTermKey(term);
    const earlier = seen.get(key);
    if (earlier) {
      if (earlier.limit === null && term.limit !== null) earlier.limit = term.limit;
      continue;
    }
    const used = BigInt(totals[key] ?? "0");
    const after = used + (counted ? contribution(term, tool, args) : 0n);
    seen.set(key, {
      window: term.window, measure: term.measure, tool: term.tool, argument: term.argument, by: term.by, limit: term.limit,
      usedBefore: Number(used), usedAfter: Number(after),
    });
  }
  return [...seen.values()];
}

/**
 * The totals a sample call would be judged with now ("test this policy"): the organisation's for
 * `tenant` budgets; a sample has no key, task or requester, so those read as nothing spent yet.
 */
export async function sampleBudgetTotals(q: Queryable, input: { tenantId: string; policy: Policy; tool: string }): Promise<BudgetTotalsInput | undefined> {
  const terms = policyBudgetTerms(input.policy, input.tool);
  if (terms.length === 0) return undefined;
  const party: BudgetParty = { tenantId: input.tenantId, apiKeyId: null, userId: null, taskId: null };
  const tenantTerms = terms.filter((term) => term.by === "tenant");
  const totals = await readBudgetTotals(q, { tenantId: input.tenantId, excludeActionId: null, totals: [...readsFor(tenantTerms, party).queries.values()] });
  return totalsForCall(terms, party, new Map([...totals].filter(([id]) => id.endsWith("@tenant"))));
}

/**
 * The budget totals each recorded call would have been judged with under `policy` (the policy
 * editor's dry run): per call, the calls of its scope in the window before it that were not
 * refused. Undefined for a call whose tool reads no budget.
 */
export async function replayedBudgetTotals(
  q: Queryable,
  input: { policy: Policy; calls: Array<{ party: BudgetParty; tool: string; createdAt: Date }> },
): Promise<Array<BudgetTotalsInput | undefined>> {
  const perCall = input.calls.map((call, i) => {
    const terms = policyBudgetTerms(input.policy, call.tool);
    const reads = readsFor(terms, call.party);
    const queries = [...reads.queries.values()].map((query) => ({ ...query, id: `${i}#${query.id}`, asOf: call.createdAt.toISOString() }));
    return { call, terms, queries };
  });
  const byTenant = new Map<string, BudgetTotalQuery[]>();
  for (const { call, queries } of perCall) byTenant.set(call.party.tenantId, [...(byTenant.get(call.party.tenantId) ?? []), ...queries]);
  const totals = new Map<string, string>();
  for (const [tenantId, queries] of byTenant) {
    for (const [id, total] of await readBudgetTotals(q, { tenantId, excludeActionId: null, totals: queries, replay: true })) totals.set(id, total);
  }
  return perCall.map(({ call, terms }, i) => {
    if (terms.length === 0) return undefined;
    const mine = new Map([...totals].filter(([id]) => id.startsWith(`${i}#`)).map(([id, total]) => [id.slice(id.indexOf("#") + 1), total]));
    return totalsForCall(terms, call.party, mine);
  });
}

/** A proposal whose tool's rules read budgets, assessed without the totals, to be judged with them. */
export type BudgetedProposal = {
  party: BudgetParty;
  tool: string;
  args: JsonObject;
  policy: Policy;
  terms: ReadonlyArray<RuleBudgetTerm>;
  judged: Judgement;
  judgeInput: JudgeInput;
  /** The standing grants in force the call might take, locked before it is judged, and the version they were read at. */
  grantIds: readonly string[];
  grantsVersion: number;
  /** The grant in force that seems to cover the call as judged with the totals, and the judgement it allows; null: none. */
  grantFor: (judged: Judgement) => Granted | null;
  /** The proposal's row for the final judgement (its status, decision, event and hash follow it), taking `grant` if any. */
  rowFor: (judged: Judgement, grant: ProposalGrant | null) => ProposalRow;
};

type Granted = { grant: ProposalGrant; judged: Judgement };

/** Written (or not); `spentGrantId`: a grant the statement found spent, not to be tried again. */
export type BudgetedWritten = { written: ProposalWritten; judged: Judgement; spentGrantId: string | null };

/** A call judged with the budgets' totals so far, and the grant that would allow it. */
type JudgedCall = { judged: Judgement; granted: Granted | null };

/**
 * Judges and writes budgeted proposals in one transaction: the budgets' locks (one per tenant,
 * counted tool and scope, in key order), the grants' locks (id order), then the totals (a statement
 * after the locks, so it sees every spend committed before them), then each proposal judged in turn
 * with the totals so far — each counted one adds to them for the next — then all written by the
 * proposal statement. The locks are held to the commit: no other proposal of these scopes reads a
 * total, and none takes these grants, meanwhile. docs/DESIGN.md, "Budgets" and "Standing grants".
 */
async function writeBudgetedBatch(db: Db, items: BudgetedProposal[]): Promise<BudgetedWritten[]> {
  return sqlTransaction(db, async (tx) => {
    const running = await lockAndReadTotals(tx, items);
    const calls = items.map((item) => judgeInTurn(item, running));
    return writeInRounds(tx, items, calls);
  });
}

/** A tenant's totals so far by query id, and its grants version as the totals' snapshot saw it. */
type Running = Map<string, { totals: Map<string, bigint>; grantsVersion: number | null }>;

/** Takes the batch's locks (budgets, then grants) and reads its totals, by tenant. */
async function lockAndReadTotals(tx: Queryable, items: BudgetedProposal[]): Promise<Running> {
  const reads: Read = { lockKeys: [], queries: new Map() };
  const byTenant = new Map<string, Read>();
  for (const item of items) {
    readsFor(item.terms, item.party, reads);
    const tenantReads = byTenant.get(item.party.tenantId) ?? { lockKeys: [], queries: new Map() };
    byTenant.set(item.party.tenantId, readsFor(item.terms, item.party, tenantReads));
  }
  await lockBudgets(tx, reads.lockKeys);
  await lockGrants(tx, items.flatMap((item) => item.grantIds.map((grantId) => ({ tenantId: item.party.tenantId, grantId }))));
  const running: Running = new Map();
  for (const [tenantId, tenantReads] of byTenant) {
    const read = await readBudgetTotalsAndGrantsVersion(tx, { tenantId, excludeActionId: null, totals: [...tenantReads.queries.values()] });
    running.set(tenantId, { totals: new Map([...read.totals].map(([id, total]) => [id, BigInt(total)])), grantsVersion: read.grantsVersion });
  }
  return running;
}

/**
 * One call judged with the totals so far, which it then adds to if it counts. A grant is looked
 * for only with this verdict: one the budget's rules deny stays denied, and a grant allows only a
 * call its rule sends to review with this call counted. A granted call counts as a pending one would.
 */
function judgeInTurn(item: BudgetedProposal, running: Running): JudgedCall | "stale" {
  const tenant = running.get(item.party.tenantId) ?? { totals: new Map<string, bigint>(), grantsVersion: null };
  const scoped = tenant.totals;
  const totals = totalsForCall(item.terms, item.party, scoped);
  const rejudged = rejudgeWithBudgets(item.judgeInput, item.policy, item.judged, totals);
  // A call for review that looked among older grants goes back to be assessed again, uncounted:
  // the proposal statement would refuse it (assessedCurrentSql) after it was counted for the next.
  const stale = rejudged.decision.effect === "require_approval" && tenant.grantsVersion !== null && tenant.grantsVersion !== item.grantsVersion;
  if (stale) return "stale";
  const counted = rejudged.decision.effect !== "deny";
  const judged: Judgement = { ...rejudged, decision: { ...rejudged.decision, budgets: budgetLines(item.terms, totals, counted, item.tool, item.args) } };
  if (counted) {
    for (const term of item.terms) {
      const id = `${budgetTermKey(term)}@${scopeOf(term, item.party).name}`;
      scoped.set(id, (scoped.get(id) ?? 0n) + contribution(term, item.tool, item.args));
    }
  }
  return { judged, granted: judged.decision.effect === "require_approval" ? item.grantFor(judged) : null };
}

/**
 * Writes the judged calls with the proposal statement, in rounds: a statement takes one call of a
 * grant (grantTakenSql), so the n-th call of one grant goes in the n-th round (one round without
 * grants). A call whose grant its statement did not take (spent, revoked, not fitting) is written
 * in the next round as the policy judged it: waiting for review, its share of the budget unchanged.
 */
async function writeInRounds(tx: Queryable, items: BudgetedProposal[], calls: Array<JudgedCall | "stale">): Promise<BudgetedWritten[]> {
  const out: BudgetedWritten[] = [];
  const judged: JudgedCall[] = [];
  const uses = new Map<string, number>();
  const rounds: Array<Array<{ i: number; granted: Granted | null }>> = [];
  calls.forEach((call, i) => {
    if (call === "stale") {
      out[i] = { written: { written: false, refusal: "stale_assessment" }, judged: items[i].judged, spentGrantId: null };
      return;
    }
    judged[i] = call;
    const n = call.granted ? (uses.get(call.granted.grant.id) ?? 0) : 0;
    if (call.granted) uses.set(call.granted.grant.id, n + 1);
    (rounds[n] ??= []).push({ i, granted: call.granted });
  });
  const spent = new Set<string>();
  for (let r = 0; r < rounds.length; r++) {
    const round = rounds[r].map((e) => (e.granted && spent.has(e.granted.grant.id) ? { ...e, granted: null } : e));
    const written = await writeProposals(tx, round.map(({ i, granted }) => (granted ? items[i].rowFor(granted.judged, granted.grant) : items[i].rowFor(judged[i].judged, null))));
    round.forEach(({ i, granted }, k) => {
      const w = written[k];
      if (granted && !w.written && (w.refusal === "grant_spent" || w.refusal === "grant_unfit")) {
        if (w.refusal === "grant_spent") spent.add(granted.grant.id);
        (rounds[r + 1] ??= []).push({ i, granted: null });
        return;
      }
      out[i] = { written: w, judged: granted ? granted.judged : judged[i].judged, spentGrantId: null };
    });
  }
  return out.map((w, i) => {
    const grantId = judged[i]?.granted?.grant.id;
    return grantId && spent.has(grantId) ? { ...w, spentGrantId: grantId } : w;
  });
}

const batchers = new WeakMap<Db, WriteBatcher<BudgetedProposal, BudgetedWritten>>();

/**
 * Writes one budgeted proposal; concurrent ones share a transaction (and its locks), as
 * write-proposal.ts shares the proposal statement: a budget's scope is judged one batch at a time.
 */
export function writeBudgetedProposal(db: Db, item: BudgetedProposal): Promise<BudgetedWritten> {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createWriteBatcher((items: BudgetedProposal[]) => writeBudgetedBatch(db, items), { maxInFlight: 2, maxRows: 64 });
    batchers.set(db, batcher);
  }
  return batcher.write(item);
}
