"""A small client for the Countersign agent API (standard library only)."""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

from .errors import (
    CountersignError,
    DeniedError,
    ExpiredError,
    NotDecidedError,
    RateLimitedError,
    RejectedError,
    error_for,
)

#: The longest long-poll the API accepts (``?timeout=``, seconds).
MAX_POLL_SECONDS = 60

#: States in which nothing more will happen without a new submission.
FINAL_STATES = {"rejected", "expired", "cancelled", "denied", "invalidated", "succeeded", "failed", "unknown"}


@dataclass
class Submission:
    """What ``POST /api/v1/actions`` answered."""

    state: str  # "pending" | "allowed" | "denied": how the policy classified it
    id: str
    payload_hash: Optional[str] = None
    expires_at: Optional[str] = None
    risk_level: Optional[str] = None
    reason: Optional[str] = None
    execution: Optional[Dict[str, Any]] = None
    #: True when this is the action an earlier submit with the same idempotency key made.
    replayed: bool = False
    #: The action's state now (on a replay it may have moved on: approved, rejected, succeeded...).
    action_state: Optional[str] = None
    #: Allowed by reviewers' standing grant instead of a review: {id, callsLeft, totalLeft, expiresAt}.
    grant: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Decision:
    """What ``GET /api/v1/actions/{id}/decision`` answered."""

    id: str
    state: str
    decided: bool
    revision: int
    payload_hash: str
    reason: Optional[str]
    expires_at: Optional[str]


@dataclass
class ExecutionResult:
    """How an execution ended. For code, ``stdout``/``stderr`` hold everything that was printed."""

    state: str
    execution_id: Optional[str]
    exit_code: Optional[int] = None
    duration_ms: Optional[int] = None
    truncated: bool = False
    isolation: Optional[str] = None
    replayed: bool = False
    stdout: str = ""
    stderr: str = ""
    result: Optional[Dict[str, Any]] = None
    #: Code only: the sandbox stopped it at its time limit.
    timed_out: bool = False

    @property
    def succeeded(self) -> bool:
        return self.state == "succeeded"

    @property
    def reason(self) -> Optional[str]:
        """Why it did not succeed, in a sentence for a person or a model (None when it succeeded)."""
        if self.timed_out:
            after = f" after {self.duration_ms} ms" if self.duration_ms is not None else ""
            return f"Timed out: the sandbox stopped the code at its time limit{after}."
        if self.state == "succeeded":
            return None
        if self.state == "executing":
            return "Still running: read the action later for its result."
        if self.state == "unknown":
            return "The outcome is unknown: the process running it stopped before recording how it ended. Check before retrying."
        if self.exit_code not in (None, 0):
            return f"The code exited with code {self.exit_code}."
        error = (self.result or {}).get("error")
        return str(error) if error else "The execution failed."


class Countersign:
    """
    Client for one API key.

    >>> cs = Countersign("http://localhost:3000", "cs_live_...")
    >>> sub = cs.submit_code("print(1)", reason="smoke test")
    >>> cs.wait_for_decision(sub.id, timeout=600)   # raises RejectedError with the reviewer's reason
    >>> cs.execute(sub.id).stdout
    """

    def __init__(self, base_url: str, api_key: str, *, request_timeout: float = 30.0, user_agent: str = "countersign-python/1.0"):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.request_timeout = request_timeout
        self.user_agent = user_agent

    # -- submitting -------------------------------------------------------------------------

    def submit_code(self, code: str, *, reason: Optional[str] = None, language: str = "python",
                    untrusted_values: Optional[List[str]] = None, idempotency_key: Optional[str] = None) -> Submission:
        """
        Submits a code block. With ``idempotency_key`` (e.g. the model's tool-call id) a retry of
        the same request gets the same action back (``replayed=True``) instead of a second one.
        """
        body: Dict[str, Any] = {"code": code, "language": language}
        return self._submit(body, reason, untrusted_values, idempotency_key)

    def submit_tool(self, tool: str, args: Dict[str, Any], *, reason: Optional[str] = None,
                    untrusted_values: Optional[List[str]] = None, idempotency_key: Optional[str] = None) -> Submission:
        return self._submit({"tool": tool, "args": args}, reason, untrusted_values, idempotency_key)

    def _submit(self, body: Dict[str, Any], reason: Optional[str], untrusted_values: Optional[List[str]],
                idempotency_key: Optional[str]) -> Submission:
        if reason:
            body["reason"] = reason
        if untrusted_values:
            body["untrustedValues"] = list(untrusted_values)
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        with self._open("POST", "/api/v1/actions", body, headers=headers, timeout=self.request_timeout) as response:
            data = json.loads(response.read().decode("utf-8"))
        return Submission(
            state=data["state"], id=data["id"], payload_hash=data.get("payloadHash"), expires_at=data.get("expiresAt"),
            risk_level=data.get("riskLevel"), reason=data.get("reason") or data.get("policyReason"),
            execution=data.get("execution"), replayed=bool(data.get("replayed")), action_state=data.get("actionState"),
            grant=data.get("grant"), raw=data,
        )

    # -- reading and waiting ----------------------------------------------------------------

    def get_action(self, action_id: str) -> Dict[str, Any]:
        return self._json("GET", f"/api/v1/actions/{action_id}")

    def wait_for_decision(self, action_id: str, timeout: float = 600.0, *, poll_seconds: int = 25) -> Decision:
        """
        Blocks until a reviewer decides (long-polling in bounded steps). Returns the decision when
        approved; raises ``RejectedError`` (with the reviewer's reason), ``ExpiredError``,
        ``DeniedError`` for other final states, or ``NotDecidedError`` after ``timeout`` seconds.
        It sends at most one request a second, and a rate-limited poll waits for the window
        rather than ending the wait.
        """
        deadline = time.monotonic() + timeout
        poll = min(MAX_POLL_SECONDS, max(1, int(poll_seconds)))
        while True:
            started = time.monotonic()
            # Whole seconds rounded up, never 0: the last poll ends at the deadline, not in a burst of timeout=0.
            step = max(1, min(poll, math.ceil(deadline - started)))
            pause = 0.0
            try:
                data = self._json("GET", f"/api/v1/actions/{action_id}/decision?timeout={step}",
                                  timeout=step + self.request_timeout)
            except RateLimitedError as limited:
                # Other requests of the key (another agent) used up its window: wait it out, within the deadline.
                data = None
                pause = limited.retry_after
            if data is not None:
                decision = Decision(
                    id=data["id"], state=data["state"], decided=data["decided"], revision=data["revision"],
                    payload_hash=data["payloadHash"], reason=data.get("reason"), expires_at=data.get("expiresAt"),
                )
                if decision.state == "approved":
                    return decision
                if decision.state == "rejected":
                    raise RejectedError(action_id, decision.reason or "no reason given")
                if decision.state == "expired":
                    raise ExpiredError("expired", decision.reason or "The approval window closed.", 409)
                if decision.decided:
                    if decision.state in {"executing", "succeeded", "failed", "unknown"}:
                        return decision  # already executed: execute() will hand back the record
                    raise DeniedError(action_id, decision.reason or f"The action is {decision.state}.", code=decision.state)
            pause = max(pause, started + 1.0 - time.monotonic())
            left = deadline - time.monotonic()
            if pause >= left:
                if left > 0:
                    time.sleep(left)
                raise NotDecidedError("not_decided", f"No decision on {action_id} within {timeout:.0f} s.")
            if pause > 0:
                time.sleep(pause)

    # -- executing ---------------------------------------------------------------------------

    def execute_stream(self, action_id: str, idempotency_key: Optional[str] = None, *,
                       payload_hash: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Yields the execution's events as they arrive: stdout/stderr lines, then a result line."""
        key = idempotency_key or f"py-{uuid.uuid4()}"
        body = {"payloadHash": payload_hash} if payload_hash else {}
        response = self._open("POST", f"/api/v1/actions/{action_id}/execute", body, headers={"Idempotency-Key": key}, timeout=None)
        with response:
            content_type = response.headers.get("Content-Type", "")
            if "ndjson" not in content_type:
                data = json.loads(response.read().decode("utf-8"))
                yield {"type": "result", "state": data["state"], "executionId": data.get("executionId"),
                       "result": data.get("result"), "isolation": data.get("isolation"), "replayed": data.get("replayed", False),
                       "exitCode": None, "durationMs": None, "truncated": False}
                return
            for raw in response:
                line = raw.decode("utf-8").strip()
                if line:
                    yield json.loads(line)

    def execute(self, action_id: str, idempotency_key: Optional[str] = None, *, payload_hash: Optional[str] = None,
                on_output: Optional[Callable[[str, str], None]] = None, wait_if_running: float = 300.0) -> ExecutionResult:
        """
        Executes an approved action once and collects the result. ``on_output(stream, text)`` sees
        code output as it arrives. A repeated call returns the recorded result (``replayed=True``);
        if the first run is still going, this waits for it (up to ``wait_if_running`` seconds).
        """
        key = idempotency_key or f"py-{uuid.uuid4()}"
        out: List[str] = []
        err: List[str] = []
        final: Optional[Dict[str, Any]] = None
        for event in self.execute_stream(action_id, key, payload_hash=payload_hash):
            kind = event.get("type")
            if kind in ("stdout", "stderr"):
                (out if kind == "stdout" else err).append(event["text"])
                if on_output:
                    on_output(kind, event["text"])
            elif kind == "result":
                final = event
            elif kind == "error":
                raise error_for(409, event.get("code", "error"), event.get("message", "Execution failed."))
        if final is None:
            raise CountersignError("stream_ended", "The execution stream ended without a result; read the action for its state.")
        if final.get("replayed") and final.get("state") == "executing":
            return self._await_recorded(action_id, wait_if_running)
        stdout = final.get("stdout", "") if final.get("replayed") else "".join(out)
        stderr = final.get("stderr", "") if final.get("replayed") else "".join(err)
        return ExecutionResult(
            state=final["state"], execution_id=final.get("executionId"), exit_code=final.get("exitCode"),
            duration_ms=final.get("durationMs"), truncated=bool(final.get("truncated")), isolation=final.get("isolation"),
            replayed=bool(final.get("replayed")), stdout=stdout or "", stderr=stderr or "", result=final.get("result"),
            timed_out=bool(final.get("timedOut")),
        )

    def _await_recorded(self, action_id: str, timeout: float) -> ExecutionResult:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            execution = (self.get_action(action_id).get("execution") or {})
            if execution.get("state") not in (None, "executing"):
                result = execution.get("result") or {}
                return ExecutionResult(
                    state=execution["state"], execution_id=execution.get("id"), exit_code=execution.get("exitCode"),
                    duration_ms=execution.get("durationMs"), truncated=bool(execution.get("truncated")),
                    isolation=execution.get("isolation"), replayed=True, stdout=result.get("stdout", "") or "",
                    stderr=result.get("stderr", "") or "", result=result, timed_out=result.get("timed_out") is True,
                )
            time.sleep(1.0)  # at most one request a second
        raise NotDecidedError("still_executing", f"The execution of {action_id} has not finished within {timeout:.0f} s.")

    def cancel(self, action_id: str, reason: Optional[str] = None) -> Dict[str, Any]:
        return self._json("POST", f"/api/v1/actions/{action_id}/cancel", {"reason": reason} if reason else {})

    def run_code(self, code: str, *, reason: Optional[str] = None, timeout: float = 600.0,
                 on_output: Optional[Callable[[str, str], None]] = None) -> ExecutionResult:
        """Submit, wait for the decision, execute: the whole gate in one call."""
        submission = self.submit_code(code, reason=reason)
        if submission.state == "denied":
            raise DeniedError(submission.id, submission.reason or "Denied by policy.")
        if submission.state == "allowed":
            execution = submission.execution or {}
            result = execution.get("result") or {}
            return ExecutionResult(state=execution.get("state", "unknown"), execution_id=execution.get("executionId"),
                                   exit_code=result.get("exit_code"), duration_ms=result.get("duration_ms"),
                                   isolation=execution.get("isolation"), stdout=result.get("stdout", ""),
                                   stderr=result.get("stderr", ""), result=result, timed_out=result.get("timed_out") is True)
        decision = self.wait_for_decision(submission.id, timeout)
        return self.execute(submission.id, f"run-{submission.id}", payload_hash=decision.payload_hash, on_output=on_output)

    # -- HTTP --------------------------------------------------------------------------------

    def _json(self, method: str, path: str, body: Optional[Dict[str, Any]] = None, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        with self._open(method, path, body, timeout=timeout if timeout is not None else self.request_timeout) as response:
            return json.loads(response.read().decode("utf-8"))

    def _open(self, method: str, path: str, body: Optional[Dict[str, Any]] = None, *,
              headers: Optional[Dict[str, str]] = None, timeout: Optional[float] = None):
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.api_key}")
        request.add_header("Accept", "application/json, application/x-ndjson")
        request.add_header("User-Agent", self.user_agent)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as error:
            raise _http_error(error) from None


def _http_error(error: urllib.error.HTTPError) -> CountersignError:
    try:
        payload = json.loads(error.read().decode("utf-8"))
        info = payload.get("error", {})
        code, message, details = info.get("code", "http_error"), info.get("message", str(error)), info.get("details")
    except (ValueError, AttributeError):
        code, message, details = "http_error", f"HTTP {error.code}", None
    try:
        retry_after = float(error.headers.get("Retry-After", "1"))
    except (TypeError, ValueError):
        retry_after = 1.0
    return error_for(error.code, code, message, details, retry_after=retry_after)
