import type { JsonObject } from "@/lib/canonical/json-value";
import type { Db } from "@/lib/db/client";
import { sqlTransaction, type Queryable } from "@/lib/db/sql";
import { createWriteBatcher, type WriteBatcher } from "@/lib/db/write-batcher";
import {
  readBudgetTotals, readBudgetTotalsAndGrantsVersions, readLockedBudgetTotals, type BudgetRead, type BudgetTotalQuery,
} from "@/lib/db/statements/actions/budget-totals";
import { writeBudgetedProposals, type ProposalGrant, type ProposalRow, type ProposalWritten } from "@/lib/db/statements/actions/write-proposals";
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

/** A total's id: the term, its scope and tenant (a batch reads several tenants' totals at once). */
function queryIdOf(term: BudgetTerm, party: BudgetParty): string {
  return `${party.tenantId}/${budgetTermKey(term)}@${scopeOf(term, party).name}`;
}

/** The locks and totals a call's terms need (`into` gathers them for a batch). */
function readsFor(terms: readonly BudgetTerm[], party: BudgetParty, into: Read = { lockKeys: [], queries: new Map() }): Read {
  for (const term of terms) {
    const scope = scopeOf(term, party);
    into.lockKeys.push(`${party.tenantId}:${term.tool}:${scope.name}`);
    const id = queryIdOf(term, party);
    into.queries.set(id, {
      id, tenantId: party.tenantId, windowSeconds: term.windowSeconds, tool: term.tool, argument: term.argument,
      apiKeyId: scope.apiKeyId, userId: scope.userId, taskId: scope.taskId,
    });
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
  const exclude = input.excludeActionId === null ? [] : [input.excludeActionId];
  const totals = await readLockedBudgetTotals(q, { lockKeys: reads.lockKeys, exclude, totals: [...reads.queries.values()] });
  return totalsForCall(input.terms, input.party, totals);
}

function totalsForCall(terms: readonly BudgetTerm[], party: BudgetParty, totals: ReadonlyMap<string, string | bigint>): BudgetTotalsInput {
  const out: BudgetTotalsInput = {};
  for (const term of terms) out[budgetTermKey(term)] = String(totals.get(queryIdOf(term, party)) ?? 0);
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
  const totals = await readBudgetTotals(q, { exclude: [], totals: [...readsFor(tenantTerms, party).queries.values()] });
  return totalsForCall(terms, party, totals);
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
  const totals = await readBudgetTotals(q, { exclude: [], totals: perCall.flatMap(({ queries }) => queries), replay: true });
  return perCall.map(({ call, terms }, i) => {
    if (terms.length === 0) return undefined;
    const mine = new Map([...totals].filter(([id]) => id.startsWith(`${i}#`)).map(([id, total]) => [id.slice(id.indexOf("#") + 1), total]));
    return totalsForCall(terms, call.party, mine);
  });
}

/** A proposal whose tool's rules read budgets, assessed without the totals, to be judged with them. */
export type BudgetedProposal = {
  /** The action the proposal writes (its batch's later statements do not count it twice). */
  actionId: string;
  party: BudgetParty;
  tool: string;
  args: JsonObject;
  policy: Policy;
  terms: ReadonlyArray<RuleBudgetTerm>;
  judged: Judgement;
  judgeInput: JudgeInput;
  /** The version of the standing grants in force the call was assessed with. */
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
 * A call judged with the budgets' totals so far, which it then adds to if it counts. A grant is
 * looked for only with this verdict: one the budget's rules deny stays denied, and a grant allows
 * only a call its rule sends to review with this call counted. A granted call counts as a pending
 * one would. "stale": a call for review assessed under older grants than the totals were read with.
 */
function judgeInTurn(item: BudgetedProposal, running: Map<string, bigint>, grantsVersion: number | undefined): JudgedCall | "stale" {
  const totals = totalsForCall(item.terms, item.party, running);
  const rejudged = rejudgeWithBudgets(item.judgeInput, item.policy, item.judged, totals);
  // Sent back to be assessed again, uncounted: the proposal statement would refuse it
  // (assessedCurrentSql) after it was counted for the next.
  const stale = rejudged.decision.effect === "require_approval" && grantsVersion !== undefined && grantsVersion !== item.grantsVersion;
  if (stale) return "stale";
  const counted = rejudged.decision.effect !== "deny";
  const judged: Judgement = { ...rejudged, decision: { ...rejudged.decision, budgets: budgetLines(item.terms, totals, counted, item.tool, item.args) } };
  if (counted) addContribution(running, item);
  return { judged, granted: judged.decision.effect === "require_approval" ? item.grantFor(judged) : null };
}

function addContribution(running: Map<string, bigint>, item: BudgetedProposal): void {
  for (const term of item.terms) {
    const id = queryIdOf(term, item.party);
    running.set(id, (running.get(id) ?? 0n) + contribution(term, item.tool, item.args));
  }
}

/** Optimistic statements before a batch holds its budgets' locks across its judgement (below). */
const OPTIMISTIC_ATTEMPTS = 2;
/** A batch whose totals keep moving even under its locks (calls released meanwhile) gives up. */
const MAX_ATTEMPTS = 8;

/**
 * Judges and writes budgeted proposals. The totals are those the process's last batch left, else
 * read (no lock); each proposal is judged in turn
 * with the totals so far — a counted one adds to them for the next — and the proposal statement
 * (writeBudgetedProposals) takes the budgets' locks, reads the totals again and writes only if they
 * are the ones the batch was judged from: the guarantee is held by that one statement, and its locks
 * only for that statement. If a total moved, nothing is written and the batch is judged again from
 * the totals the statement saw; after OPTIMISTIC_ATTEMPTS such misses, in a transaction that takes
 * the locks and reads the totals first, so that only a release can move them meanwhile. The batch's
 * own actions are never counted in what the statement reads: a statement takes one call of a grant,
 * so a batch may write its calls in several statements (writeRounds). docs/DESIGN.md, "Budgets".
 */
async function writeBudgetedBatch(db: Db, items: BudgetedProposal[], known: KnownTotals): Promise<BudgetedWritten[]> {
  const read = readOf(items);
  const first = knownFor(known, items, read) ?? await readBudgetTotalsAndGrantsVersions(db, { exclude: read.exclude, totals: read.totals });
  const batch: Batch = { items, read, judgedFrom: first.totals, grantsVersions: first.grantsVersions, out: [], writtenAdds: new Map(), spentGrants: new Set(), holdAcrossRounds: false };
  let waiting = items.map((_, i) => i);
  try {
    for (let attempt = 0; waiting.length > 0; attempt++) {
      if (attempt >= MAX_ATTEMPTS) throw new Error(`The budgets of ${items.length} proposals kept moving: nothing more was written.`);
      waiting = attempt < OPTIMISTIC_ATTEMPTS && !batch.holdAcrossRounds
        ? await writeRounds(db, batch, waiting, false)
        : await inTransaction(db, batch, async (tx) => {
          batch.judgedFrom = await readLockedBudgetTotals(tx, read);
          return writeRounds(tx, batch, waiting, true);
        });
    }
  } catch (error) {
    // Nothing committed yet: the batcher sends each proposal again alone. Once a statement has
    // committed some, sending those again would not write them twice but would misreport them:
    // the rest go back to be assessed again (stale_assessment), as new proposals.
    if (!batch.out.some((w) => w?.written.written)) throw error;
    items.forEach((item, i) => (batch.out[i] ??= { written: { written: false, refusal: "stale_assessment" }, judged: item.judged, triedGrantId: null }));
  }
  remember(known, batch);
  return batch.out.map((w) => ({
    written: w.written, judged: w.judged, spentGrantId: w.triedGrantId !== null && batch.spentGrants.has(w.triedGrantId) ? w.triedGrantId : null,
  }));
}

/** A transaction of the batch's: what it wrote is forgotten if it rolls back. */
async function inTransaction(db: Db, batch: Batch, fn: (tx: Queryable) => Promise<number[]>): Promise<number[]> {
  const before = { out: batch.out.slice(), writtenAdds: new Map(batch.writtenAdds) };
  try {
    return await sqlTransaction(db, fn);
  } catch (error) {
    Object.assign(batch, before);
    throw error;
  }
}

type Batch = {
  items: BudgetedProposal[];
  read: BudgetRead;
  /** The totals (the batch's own actions not counted) the next statement must find. */
  judgedFrom: Map<string, string>;
  grantsVersions: Map<string, number>;
  /** Each call as written, and the grant its judgement looked for (if spent, the process stops trying it). */
  out: Array<{ written: ProposalWritten; judged: Judgement; triedGrantId: string | null }>;
  /** What the batch's written, counted calls add to judgedFrom. */
  writtenAdds: Map<string, bigint>;
  spentGrants: Set<string>;
  /**
   * The batch takes several calls of one grant, in as many statements: it holds its locks across
   * them, or another batch could move a total between its rounds and send the grant's later calls
   * to review with this batch's other calls counted before them.
   */
  holdAcrossRounds: boolean;
};

/** The locks, totals and excluded actions of a batch (its own: a later statement must not count the earlier ones). */
function readOf(items: BudgetedProposal[]): BudgetRead {
  const reads: Read = { lockKeys: [], queries: new Map() };
  for (const item of items) readsFor(item.terms, item.party, reads);
  return { lockKeys: reads.lockKeys, exclude: items.map((item) => item.actionId), totals: [...reads.queries.values()] };
}

/**
 * Judges the waiting calls in turn and writes them with the proposal statement, in rounds: a
 * statement takes one call of a grant (grantTakenSql), so the n-th call of one grant goes in the
 * n-th round (one round without grants: several need the locks `held` across them). A call whose grant its statement did not take (spent,
 * revoked, not fitting) is written in the next round as the policy judged it: waiting for review,
 * its share of the budget unchanged. Returns the calls still to write: none, or, if a total moved,
 * every call not yet written, to be judged again from the totals the statement saw.
 */
async function writeRounds(q: Queryable, batch: Batch, waiting: number[], held: boolean): Promise<number[]> {
  const { items } = batch;
  const running = new Map([...batch.judgedFrom].map(([id, total]) => [id, BigInt(total)]));
  for (const [id, add] of batch.writtenAdds) running.set(id, (running.get(id) ?? 0n) + add);
  const judged = new Map<number, JudgedCall>();
  const uses = new Map<string, number>();
  const rounds: Array<Array<{ i: number; granted: Granted | null }>> = [];
  for (const i of waiting) {
    const call = judgeInTurn(items[i], running, batch.grantsVersions.get(items[i].party.tenantId));
    if (call === "stale") {
      batch.out[i] = { written: { written: false, refusal: "stale_assessment" }, judged: items[i].judged, triedGrantId: null };
      continue;
    }
    judged.set(i, call);
    const granted = call.granted && !batch.spentGrants.has(call.granted.grant.id) ? call.granted : null;
    const n = granted ? (uses.get(granted.grant.id) ?? 0) : 0;
    if (granted) uses.set(granted.grant.id, n + 1);
    (rounds[n] ??= []).push({ i, granted });
  }
  if (rounds.length > 1 && !held) {
    batch.holdAcrossRounds = true;
    return waiting;
  }
  for (let r = 0; r < rounds.length; r++) {
    const round = rounds[r].map((e) => (e.granted && batch.spentGrants.has(e.granted.grant.id) ? { ...e, granted: null } : e));
    const rows = round.map(({ i, granted }) => (granted ? items[i].rowFor(granted.judged, granted.grant) : items[i].rowFor(judged.get(i)!.judged, null)));
    const result = await writeBudgetedProposals(q, rows, { read: batch.read, judgedFrom: batch.judgedFrom });
    if (result.moved) {
      batch.judgedFrom = result.seen;
      return rounds.slice(r).flat().map(({ i }) => i).sort((a, b) => a - b);
    }
    round.forEach(({ i, granted }, k) => {
      const w = result.written[k];
      const call = judged.get(i)!;
      if (granted && !w.written && (w.refusal === "grant_spent" || w.refusal === "grant_unfit")) {
        if (w.refusal === "grant_spent") batch.spentGrants.add(granted.grant.id);
        (rounds[r + 1] ??= []).push({ i, granted: null });
        return;
      }
      batch.out[i] = { written: w, judged: granted ? granted.judged : call.judged, triedGrantId: call.granted?.grant.id ?? null };
      if (w.written && call.judged.decision.effect !== "deny") addContribution(batch.writtenAdds, items[i]);
    });
  }
  return [];
}

/**
 * The totals and grants versions as this process's last batch left them (what its statement found,
 * plus what it wrote): the next batch is judged from them without reading them first. Only a hint —
 * the statement checks them under the locks, and a total another process moved costs a second try.
 */
type KnownTotals = { totals: Map<string, string>; grantsVersions: Map<string, number> };

/** Totals remembered for at most this many budgets' scopes (then forgotten, and read again). */
const MAX_KNOWN_TOTALS = 10_000;

function knownFor(known: KnownTotals, items: BudgetedProposal[], read: BudgetRead): KnownTotals | null {
  const totals = new Map<string, string>();
  for (const query of read.totals) {
    const total = known.totals.get(query.id);
    if (total === undefined) return null;
    totals.set(query.id, total);
  }
  // A call assessed under other grants than the remembered version: read them, or it would be sent back for nothing.
  if (items.some((item) => known.grantsVersions.get(item.party.tenantId) !== item.grantsVersion)) return null;
  return { totals, grantsVersions: known.grantsVersions };
}

function remember(known: KnownTotals, batch: Batch): void {
  if (known.totals.size > MAX_KNOWN_TOTALS) known.totals.clear();
  for (const [id, total] of batch.judgedFrom) known.totals.set(id, String(BigInt(total) + (batch.writtenAdds.get(id) ?? 0n)));
  for (const [tenantId, version] of batch.grantsVersions) known.grantsVersions.set(tenantId, version);
}

const batchers = new WeakMap<Db, WriteBatcher<BudgetedProposal, BudgetedWritten>>();

/**
 * Writes one budgeted proposal; concurrent ones are judged together and share the proposal
 * statement, as write-proposal.ts shares it.
 */
export function writeBudgetedProposal(db: Db, item: BudgetedProposal): Promise<BudgetedWritten> {
  let batcher = batchers.get(db);
  if (!batcher) {
    // One batch at a time, each judged from the totals the last one left. Two in flight, each judged
    // from what the other would leave, raced for the lock: a statement that took it out of turn
    // found the totals moved, and so did the next batch judged from its guess (measured: most did).
    const known: KnownTotals = { totals: new Map(), grantsVersions: new Map() };
    batcher = createWriteBatcher((items: BudgetedProposal[]) => writeBudgetedBatch(db, items, known), { maxInFlight: 1, maxRows: 64 });
    batchers.set(db, batcher);
  }
  return batcher.write(item);
}
