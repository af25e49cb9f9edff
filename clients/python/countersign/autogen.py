"""
AutoGen adapter: a code executor that puts every Python block through Countersign.

Each block is submitted for review, the call blocks until a reviewer decides, and an approved
block runs remotely in Countersign's sandbox (never on this machine). A rejection raises
``RejectedError`` (a ``PermissionError``) carrying the reviewer's reason, so the agent can revise.

AutoGen is imported only here, and only if it is installed: without it ``GatedExecutor`` still
works as a plain object with the same ``execute_code_blocks`` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from .client import Countersign
from .errors import DeniedError

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
    when approved and returns an AutoGen ``CommandLineCodeResult``. Other languages are refused
    (never run locally).
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
            submission = self.client.submit_code(code, reason=self.reason)
            if submission.state == "denied":
                # Blocked by the pre-scan or the policy: back to the agent with the reason.
                raise DeniedError(submission.id, submission.reason or "Denied by policy.")
            if submission.state == "allowed":
                execution = submission.execution or {}
                result = execution.get("result") or {}
                outputs.append((result.get("stdout") or "") + (result.get("stderr") or ""))
                exit_code = exit_code or (0 if execution.get("state") == "succeeded" else 1)
                continue
            if self.on_submitted:
                self.on_submitted(submission.id, code)
            decision = self.client.wait_for_decision(submission.id, self.decision_timeout)  # raises RejectedError
            result = self.client.execute(submission.id, f"autogen-{submission.id}", payload_hash=decision.payload_hash,
                                         on_output=self.on_output)
            outputs.append(result.stdout + result.stderr)
            if not result.succeeded:
                exit_code = result.exit_code if result.exit_code not in (None, 0) else 1
                break  # later blocks usually depend on this one
        return _Result(exit_code=exit_code, output=_tail("".join(outputs), self.max_output_chars), code_file=None)

    def restart(self) -> None:
        """Nothing to restart: every run is a fresh sandbox."""
