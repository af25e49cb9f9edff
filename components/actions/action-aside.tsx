import type { ActionDetail, RevisionView } from "@/lib/review/action-detail";
import { isolationLabel } from "@/lib/sandbox/isolation-label";
import { DecisionSection } from "@/components/actions/decision-section";
import { DecisionHistory, RevisionHistory } from "@/components/actions/histories";
import { JsonBlock, Section } from "@/components/actions/section";
import { Grants } from "@/components/admin/grants";
import { revokeGrantFromConsole } from "@/app/(console)/actions/review-actions";

/** The action page's side column: the decision, what it is bound to, and its history. */
export function ActionAside({ action, passkeyOrigins }: { action: ActionDetail; passkeyOrigins: string[] }) {
  const { current } = action;
  return (
    <aside className="min-w-0 space-y-4" aria-label="Decide and record">
      <DecisionSection action={action} passkeyOrigins={passkeyOrigins} />
      {action.grants.length > 0 && (
        <Section title="Standing grants" id="grants">
          <Grants grants={action.grants} revoke={revokeGrantFromConsole} />
        </Section>
      )}
      <HashAndPolicySection current={current} payloadHash={action.payloadHash} />
      {current.sandboxSpec && <SandboxSpecSection spec={current.sandboxSpec} />}
      <Section title="Decision history" id="decisions">
        <DecisionHistory decisions={action.decisions} />
      </Section>
      <Section title={`Revisions (${action.revisions.length})`} id="revisions">
        <RevisionHistory revisions={action.revisions} />
      </Section>
    </aside>
  );
}

function HashAndPolicySection({ current, payloadHash }: { current: RevisionView; payloadHash: string }) {
  return (
    <Section title="Payload hash and policy" id="hash">
      <dl className="space-y-2 text-[0.85rem]">
        <div>
          <dt className="text-xs text-slate-600">Payload hash ({current.hashAlgorithm === "sha256-jcs" ? "SHA-256 over RFC 8785 canonical JSON" : current.hashAlgorithm}, v{current.hashVersion})</dt>
          <dd className="break-all font-mono text-[0.78rem]" data-testid="payload-hash">{payloadHash}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-600">Policy rule that matched (policy version {current.policyVersion})</dt>
          <dd>
            <span className="font-mono">{current.policyDecision.ruleId ?? "(default)"}</span>
            {current.policyDecision.effect && <> · {current.policyDecision.effect.replaceAll("_", " ")}</>}
            {current.policyDecision.tier && <> · {current.policyDecision.tier} tier</>}
          </dd>
          {current.policyDecision.reason && <dd className="mt-0.5 text-slate-700">{current.policyDecision.reason}</dd>}
        </div>
      </dl>
    </Section>
  );
}

function SandboxSpecSection({ spec }: { spec: NonNullable<RevisionView["sandboxSpec"]> }) {
  return (
    <Section title="Sandbox spec (part of the hash)" id="sandbox">
      {isolationLabel(spec.isolation) && (
        <p className="mb-2 text-sm text-slate-700">
          Runs under <span className="font-medium">{isolationLabel(spec.isolation)}</span>.
        </p>
      )}
      <JsonBlock value={spec} label="Sandbox spec" />
    </Section>
  );
}
