"""
AutoGen adapter: a code executor that puts every Python block through Countersign.

Each block is submitted for review, the call blocks until a reviewer decides, and an approved
block runs remotely in Countersign's sandbox (never on this machine). Whatever the gate decides
goes back to the assistant as the block's result, the way a failed run would: a rejection, a
pre-scan or policy denial, an expiry, a cancellation or an invalidation is a
``CommandLineCodeResult`` with a non-zero exit code whose output says what happened and why (the
reviewer's reason, the policy's or pre-scan's), so the assistant can revise the code and the chat
goes on. Only failures to reach Countersign at all (a bad key, the network) raise.

AutoGen is imported only here, and only if it is installed: without it ``GatedExecutor`` still
works as a plain object with the same ``execute_code_blocks`` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from .client import Countersign, ExecutionResult
from .errors import ConflictError, DeniedError, ExpiredError, NotDecidedError, RejectedError

try:  # pragma: no cover - depends on whether AutoGen is installed
    from autogen.coding import LocalCommandLineCodeExecutor as _BaseExecutor  # type: ignore
except Exception:  # ImportError, or an AutoGen version without it
    _BaseExecutor = object  # type: ignore[assignment,misc]

try:  # pragma: no cover
    from autogen.coding.base import CommandLineCodeResult as _Result  # type: ignore
except Exception:
    @dataclass
    class _Result:  # type: ignore[no-redef]
        exit_code: int
        output: str
        code_file: Optional[str] = None

AUTOGEN_AVAILABLE = _BaseExecutor is not object

#: The exit code of a block the gate did not let run (rejected, denied, expired, cancelled...).
NOT_RUN_EXIT_CODE = 1

# What each final state the gate can end a block in means for the assistant.
_NOT_RUN = {
    "denied": "Countersign denied this code block before review; it was not run. Reason: {reason}",
    "cancelled": "This code block's approval request was cancelled; it was not run. Reason: {reason}",
    "invalidated": "This code block's approval was invalidated (what it rested on changed); it was not run. Reason: {reason}",
}


def _tail(text: str, limit: int) -> str:
    """Feeds back only the end of long output (the model does not need 2 GB of prints)."""
    if len(text) <= limit:
        return text
    return "[output truncated: showing the last %d characters]\n%s" % (limit, text[-limit:])


class GatedExecutor(_BaseExecutor):  # type: ignore[misc,valid-type]
    """
    Drop-in for AutoGen's code executor::

        executor = GatedExecutor(Countersign(url, key), decision_timeout=900)
        user = UserProxyAgent("gate", code_execution_config={"executor": executor}, human_input_mode="NEVER")

    ``execute_code_blocks`` submits each Python block, waits for the decision, runs it remotely
    when approved and returns an AutoGen ``CommandLineCodeResult``. A block the gate does not let
    run ends the batch with a failed result carrying the reason (later blocks usually depend on
    it). Other languages are refused (never run locally).
    """

    def __init__(self, client: Countersign, *, decision_timeout: float = 900.0, reason: Optional[str] = None,
                 max_output_chars: int = 10_000, on_output: Optional[Callable[[str, str], None]] = None,
                 on_submitted: Optional[Callable[[str, str], None]] = None, **executor_kwargs: Any):
        if AUTOGEN_AVAILABLE:
            super().__init__(**executor_kwargs)
        self.client = client
        self.decision_timeout = decision_timeout
        self.reason = reason
        self.max_output_chars = max_output_chars
        self.on_output = on_output
        # Called with (action_id, code) once a block waits for review, e.g. to print a console link.
        self.on_submitted = on_submitted

    def execute_code_blocks(self, code_blocks: List[Any]) -> Any:
        outputs: List[str] = []
        exit_code = 0
        for block in code_blocks:
            language = (getattr(block, "language", "") or "").lower()
            code = getattr(block, "code", "")
            if language not in ("python", "py", "python3"):
                outputs.append(f"Refused: only Python blocks run, in Countersign's sandbox (got {language or 'no language'}).")
                exit_code = 1
                continue
            block_exit, output = self._run_block(code)
            outputs.append(output)
            if block_exit != 0:
                exit_code = block_exit
                break  # later blocks usually depend on this one
        return _Result(exit_code=exit_code, output=_tail("".join(outputs), self.max_output_chars), code_file=None)

    def _run_block(self, code: str) -> Tuple[int, str]:
        """One block through the gate: (exit code, output for the assistant)."""
        submission = self.client.submit_code(code, reason=self.reason)
        if submission.state == "denied":
            # Blocked by the pre-scan or the policy: back to the assistant with the reason.
            return NOT_RUN_EXIT_CODE, _NOT_RUN["denied"].format(reason=submission.reason or "denied by policy") + "\n"
        if submission.state == "allowed":
            execution = submission.execution or {}
            result = execution.get("result") or {}
            ran = ExecutionResult(state=execution.get("state", "unknown"), execution_id=execution.get("executionId"),
                                  exit_code=result.get("exit_code"), duration_ms=result.get("duration_ms"),
                                  stdout=result.get("stdout") or "", stderr=result.get("stderr") or "", result=result,
                                  timed_out=result.get("timed_out") is True)
            return self._ran(ran)
        if self.on_submitted:
            self.on_submitted(submission.id, code)
        try:
            decision = self.client.wait_for_decision(submission.id, self.decision_timeout)
            result = self.client.execute(submission.id, f"autogen-{submission.id}", payload_hash=decision.payload_hash,
                                         on_output=self.on_output)
        except RejectedError as rejected:
            return NOT_RUN_EXIT_CODE, (
                "A reviewer rejected this code block; it was not run. "
                f"The reviewer's reason: {rejected.reason}\n"
            )
        except ExpiredError:
            return NOT_RUN_EXIT_CODE, "The approval request for this code block expired before it was run; it was not run.\n"
        except DeniedError as ended:
            # Cancelled, invalidated or denied while it waited (wait_for_decision names the state as the code).
            template = _NOT_RUN.get(ended.code, "This code block was not run: it is {state}. Reason: {reason}")
            return NOT_RUN_EXIT_CODE, template.format(reason=ended.reason, state=ended.code) + "\n"
        except NotDecidedError:
            # Nobody decided in time. Withdraw it, so a late approval cannot look like it will run.
            try:
                self.client.cancel(submission.id, "The agent stopped waiting for a decision.")
            except ConflictError:
                pass  # decided meanwhile; it still does not run from here
            return NOT_RUN_EXIT_CODE, (
                f"No reviewer decided on this code block within {self.decision_timeout:.0f} s; "
                "it was withdrawn and not run.\n"
            )
        except ConflictError as refused:
            # Approved, but the execution was refused (the state it rested on changed, a hash mismatch...).
            return NOT_RUN_EXIT_CODE, f"This code block was approved but not run: {refused.message}\n"
        return self._ran(result)

    @staticmethod
    def _ran(result: ExecutionResult) -> Tuple[int, str]:
        output = result.stdout + result.stderr
        if result.succeeded:
            return 0, output
        exit_code = result.exit_code if result.exit_code not in (None, 0) else 1
        if output and not output.endswith("\n"):
            output += "\n"
        return exit_code, output + (result.reason or "The execution failed.") + "\n"

    def restart(self) -> None:
        """Nothing to restart: every run is a fresh sandbox."""
