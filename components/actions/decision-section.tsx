import type { ActionDetail } from "@/lib/review/action-detail";
import { stateVerdict } from "@/lib/review/state-verdict";
import { DecisionPanel } from "@/components/actions/decision-panel";
import { EditArgs } from "@/components/actions/edit-args";
import { RunInSandbox } from "@/components/actions/run-in-sandbox";
import { Section } from "@/components/actions/section";

/** Where the viewer acts on the action: decide it, edit its arguments, run its code in the sandbox. */
export function DecisionSection({ action, passkeyOrigins }: { action: ActionDetail; /** Where passkeys work (a signed approval). */ passkeyOrigins: string[] }) {
  const { current, viewer } = action;
  return (
    <Section title="Decision" id="decide">
      <DecisionPanel
        actionId={action.id}
        payloadHash={action.payloadHash}
        revision={action.currentRevision}
        summary={current.preview?.summary ?? action.tool}
        canDecide={action.status === "pending" && viewer.canDecide}
        stateChanged={stateVerdict(action.stateNow) === "changed"}
        signatureRequired={current.policyDecision.signature === "required"}
        passkeyOrigins={passkeyOrigins}
        grantDraft={action.grantDraft}
        staysWhenApproved={action.kind === "code"}
        blockedText={
          viewer.decideBlockedReason ??
          (action.status === "pending" ? "Waiting for reviewers." : `No decision is open: this action is ${action.status.replaceAll("_", " ")}.`)
        }
      />
      {viewer.canEdit && (
        <div className="mt-3 border-t border-slate-100 pt-3">
          <EditArgs actionId={action.id} payloadHash={action.payloadHash} args={current.args} isCode={action.kind === "code"} schema={action.argsSchema} />
        </div>
      )}
      {action.kind === "code" && (
        <RunInSandbox actionId={action.id} payloadHash={action.payloadHash} canRun={viewer.canRun} />
      )}
    </Section>
  );
}
