import type { AuditAlarm } from "@/lib/audit/audit-state-file";
import type { ChainVerification } from "@/lib/audit/verify-audit-chain";
import type { AuditVerificationRow } from "@/lib/db/statements/audit/read-latest-audit-verification";

function age(from: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - from.getTime()) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} days ago`;
}

const count = (n: number | bigint) => n.toLocaleString("en-US");

/**
 * The state of the tenant's evidence: the latest signed checkpoint, what was added since and
 * verified on this visit (incremental, read-only), the last full verification, the failures the
 * console remembers beside its key until an operator resolves them, and the log's public key for
 * anyone who wants to check offline.
 */
export function ChainStatus({ result, lastFull, alarms, tenantId, verifierKey, now }: {
  result: ChainVerification; lastFull: AuditVerificationRow | null; alarms: readonly AuditAlarm[]; tenantId: string; verifierKey: string; now: Date;
}) {
  const checkpoint = result.checkpoint;
  const details = (
    <dl className="mt-1 grid gap-x-4 gap-y-0.5 text-sm sm:grid-cols-[max-content_1fr]">
      <dt className="font-medium">Latest signed checkpoint</dt>
      <dd>
        {checkpoint
          ? <>{count(checkpoint.size)} events, {age(checkpoint.createdAt, now)}{checkpoint.witnesses.length > 0 ? `, co-signed by ${checkpoint.witnesses.join(", ")}` : ", not witnessed"} <span className="font-mono text-xs">root {checkpoint.rootHash.slice(0, 16)}…</span></>
          : "none yet (the first is signed within a minute of the first event)"}
      </dd>
      <dt className="font-medium">Last full verification</dt>
      <dd>{lastFull ? <>{lastFull.ok ? "passed" : "FAILED"}: {count(lastFull.checked)} events, {age(lastFull.finishedAt, now)}</> : "not run yet"}</dd>
      <dt className="font-medium">Log public key</dt>
      <dd className="break-all font-mono text-xs" data-testid="audit-verifier-key">{verifierKey}</dd>
    </dl>
  );
  // A failed full walk stays an alarm until a later one passes.
  const fullFailed = lastFull !== null && !lastFull.ok;
  if (result.ok && !fullFailed && alarms.length === 0) {
    return (
      <div role="status" className="rounded-lg border border-emerald-300 bg-emerald-50 px-4 py-2 text-emerald-900">
        <p>
          <span className="font-semibold">✓ Evidence verified</span>{" "}
          {count(result.treeSize)} events in the tree; {count(result.checked)} added since the latest checkpoint checked now (MACs, leaf hashes, subtrees).
          {result.unsealed > 0 && ` ${count(result.unsealed)} newer events are being sealed.`}
        </p>
        {details}
      </div>
    );
  }
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-2 text-red-900">
      <p className="font-semibold">✗ Evidence verification failed</p>
      {!result.ok && (
        <>
          <p>Checked now, since the latest checkpoint:</p>
          <ul className="list-disc pl-5">
            {result.problems.map((p, i) => <li key={i}><span className="font-mono text-xs">{p.problem}</span> {p.message}</li>)}
          </ul>
        </>
      )}
      {fullFailed && (
        <>
          <p>The last full verification, {age(lastFull.finishedAt, now)}:</p>
          <ul className="list-disc pl-5">
            {lastFull.problems.map((p, i) => <li key={i}><span className="font-mono text-xs">{p.problem}</span> {p.message}</li>)}
          </ul>
        </>
      )}
      {alarms.length > 0 && (
        <>
          <p>Found earlier by this console and not resolved (kept beside its signing key, where the database cannot erase it):</p>
          <ul className="list-disc pl-5" data-testid="audit-alarms">
            {alarms.map((alarm, i) => (
              <li key={i}>
                {SOURCE[alarm.source]}, {age(new Date(alarm.at), now)}:{" "}
                {alarm.problems.map((p, j) => <span key={j}><span className="font-mono text-xs">{p.problem}</span> {p.message} </span>)}
              </li>
            ))}
          </ul>
          <p className="text-sm">
            Once investigated, an operator resolves it on the console&apos;s machine: <code className="font-mono text-xs">npm run audit:resolve -- {tenantId} --note &quot;…&quot;</code>
          </p>
        </>
      )}
      {details}
    </div>
  );
}

const SOURCE: Record<AuditAlarm["source"], string> = {
  full_walk: "A full verification",
  checkpoint: "A checkpoint refused",
  witness: "A witness",
};
