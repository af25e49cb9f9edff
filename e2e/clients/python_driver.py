"""Drives the Python client against the running app for e2e/clients/python-client.spec.ts.

Prints one JSON event per line: {"event": "submitted", ...} once the action waits for review,
then what happened. Mode "client" uses Countersign directly; "gated" uses the AutoGen GatedExecutor,
whose result (a CommandLineCodeResult) is what the assistant would see.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

from countersign import Countersign, RejectedError  # noqa: E402
from countersign.autogen import GatedExecutor  # noqa: E402


def emit(**event):
    print(json.dumps(event), flush=True)


class Block:
    def __init__(self, code):
        self.code = code
        self.language = "python"


def main():
    mode, url, key, code = sys.argv[1], os.environ["CS_URL"], os.environ["CS_KEY"], os.environ["CS_CODE"]
    cs = Countersign(url, key)
    if mode == "gated":
        executor = GatedExecutor(cs, decision_timeout=60, on_submitted=lambda action_id, _c: emit(event="submitted", id=action_id))
        try:
            result = executor.execute_code_blocks([Block(code)])
            emit(event="executed", exitCode=result.exit_code, output=result.output)
        except Exception as error:  # the gate's outcomes never raise; anything that does is reported
            emit(event="raised", type=type(error).__name__, message=str(error))
        return
    submission = cs.submit_code(code, reason="e2e: python client")
    emit(event="submitted", id=submission.id, state=submission.state, payloadHash=submission.payload_hash)
    try:
        decision = cs.wait_for_decision(submission.id, timeout=60, poll_seconds=5)
    except RejectedError as error:
        emit(event="rejected", reason=error.reason, code=error.code)
        return
    streamed = []
    result = cs.execute(submission.id, payload_hash=decision.payload_hash, on_output=lambda s, t: streamed.append([s, t]))
    emit(event="executed", state=result.state, exitCode=result.exit_code, stdout=result.stdout, isolation=result.isolation,
         replayed=result.replayed, streamed=streamed, timedOut=result.timed_out, reason=result.reason)
    again = cs.execute(submission.id)
    emit(event="replayed", replayed=again.replayed, stdout=again.stdout, executionId=again.execution_id == result.execution_id)


if __name__ == "__main__":
    main()
