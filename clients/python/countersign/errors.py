"""Typed errors carrying the server's stable error code and message."""

from __future__ import annotations

from typing import Any, Optional


class CountersignError(Exception):
    """Any refusal from Countersign: ``code`` is stable, ``message`` is for a person."""

    def __init__(self, code: str, message: str, status: Optional[int] = None, details: Any = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.details = details


class AuthenticationError(CountersignError):
    """401: the API key is missing, unknown or revoked."""


class PermissionDeniedError(CountersignError, PermissionError):
    """403: e.g. the key may not propose this tool (``tool_not_allowed``)."""


class NotFoundError(CountersignError):
    """404: no such action for this key."""


class InvalidRequestError(CountersignError):
    """400/413/415: the request was refused and nothing changed."""


class ConflictError(CountersignError):
    """409: the action is not executable (pending, expired, hash mismatch, ...)."""


class RateLimitedError(CountersignError):
    """429: slow down; ``retry_after`` seconds until the window resets."""

    def __init__(self, code: str, message: str, status: Optional[int] = None, details: Any = None, retry_after: float = 1.0):
        super().__init__(code, message, status, details)
        self.retry_after = retry_after


class RejectedError(CountersignError, PermissionError):
    """A reviewer rejected the action; ``reason`` is their note, sent back so the agent can revise."""

    def __init__(self, action_id: str, reason: str):
        super().__init__("rejected", f"A reviewer rejected the action: {reason}")
        self.action_id = action_id
        self.reason = reason


class DeniedError(CountersignError, PermissionError):
    """The policy refused the action outright (never reached a reviewer)."""

    def __init__(self, action_id: Optional[str], reason: str, code: str = "denied"):
        super().__init__(code, reason)
        self.action_id = action_id
        self.reason = reason


class ExpiredError(ConflictError):
    """The approval window closed before a decision or before execution."""


class NotDecidedError(CountersignError, TimeoutError):
    """``wait_for_decision`` ran out of time while the action was still pending."""


def error_for(status: int, code: str, message: str, details: Any = None, retry_after: float = 1.0) -> CountersignError:
    if status == 429:
        return RateLimitedError(code, message, status, details, retry_after=retry_after)
    if code == "expired":
        return ExpiredError(code, message, status, details)
    cls = {401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError, 409: ConflictError}.get(status)
    if cls is None:
        cls = InvalidRequestError if 400 <= status < 500 else CountersignError
    return cls(code, message, status, details)
