"""Drives the Python client's decision waits for tests/client-waits.test.ts; one JSON event per line.

Mode "wait": submits the tool call CS_TOOL with CS_ARGS (or takes the action CS_ACTION) and waits
CS_TIMEOUT seconds for a decision.
Mode "gated": runs the code CS_CODE through the AutoGen GatedExecutor with decision_timeout=CS_TIMEOUT.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients", "python"))

from countersign import Countersign, CountersignError  # noqa: E402
from countersign.autogen import GatedExecutor  # noqa: E402


def emit(**event):
    print(json.dumps(event), flush=True)


class Block:
    def __init__(self, code):
        self.code = code
        self.language = "python"


def main():
    mode, timeout = sys.argv[1], float(os.environ["CS_TIMEOUT"])
    cs = Countersign(os.environ["CS_URL"], os.environ["CS_KEY"])
    if mode == "gated":
        executor = GatedExecutor(cs, decision_timeout=timeout, on_submitted=lambda action_id, _code: emit(event="submitted", id=action_id))
        try:
            result = executor.execute_code_blocks([Block(os.environ["CS_CODE"])])
            emit(event="executed", exitCode=result.exit_code, output=result.output)
        except Exception as error:  # the executor must not raise for a wait that ran out
            emit(event="raised", type=type(error).__name__, message=str(error))
        return
    action_id = os.environ.get("CS_ACTION")
    if action_id is None:
        submission = cs.submit_tool(os.environ["CS_TOOL"], json.loads(os.environ["CS_ARGS"]))
        emit(event="submitted", id=submission.id, state=submission.state)
        action_id = submission.id
    try:
        cs.wait_for_decision(action_id, timeout=timeout)
        emit(event="decided")
    except CountersignError as error:
        emit(event="ended", type=type(error).__name__, code=error.code)


if __name__ == "__main__":
    main()
