"""Countersign: put an accountable human gate in front of an agent's side effects."""

from .client import Countersign, Decision, ExecutionResult, Submission
from .errors import (
    AuthenticationError,
    ConflictError,
    CountersignError,
    DeniedError,
    ExpiredError,
    InvalidRequestError,
    NotDecidedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    RejectedError,
)

__all__ = [
    "Countersign", "Decision", "ExecutionResult", "Submission",
    "AuthenticationError", "ConflictError", "CountersignError", "DeniedError", "ExpiredError", "InvalidRequestError",
    "NotDecidedError", "NotFoundError", "PermissionDeniedError", "RateLimitedError", "RejectedError",
]
