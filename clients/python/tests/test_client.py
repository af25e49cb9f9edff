"""Tests for the client core against a fake Countersign server (standard library only).

    python3 -m unittest discover -s clients/python/tests
"""

import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from countersign import (  # noqa: E402
    AuthenticationError, Countersign, ExpiredError, InvalidRequestError, NotDecidedError,
    PermissionDeniedError, RateLimitedError, RejectedError,
)
from countersign.autogen import GatedExecutor  # noqa: E402

KEY = "cs_live_abcdefabcdef_" + "A" * 43
HASH = "a" * 64


# The decision the fake's reviewer makes, by a word in the code; the note it leaves.
VERDICTS = [("reject", "rejected"), ("expire", "expired"), ("forever", "pending"), ("cancel", "cancelled"), ("invalidate", "invalidated")]
NOTES = {
    "rejected": "Not on production data",
    "cancelled": "Withdrawn by the requester",
    "invalidated": "The invoice changed since review",
}


class Fake:
    """State of the fake server: actions by id, with a scripted decision."""

    def __init__(self):
        self.actions = {}
        self.keys = {}
        self.cancelled = []
        self.requests = []
        self.executions = 0


class Block:
    def __init__(self, code, language="python"):
        self.code = code
        self.language = language


def make_handler(fake):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status, body, headers=None, content_type="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status, code, message, headers=None):
            self._send(status, {"error": {"code": code, "message": message}}, headers)

        def _authed(self):
            if self.headers.get("Authorization") != f"Bearer {KEY}":
                self._error(401, "invalid_api_key", "That API key is not valid.")
                return False
            return True

        def do_GET(self):
            fake.requests.append(("GET", self.path, dict(self.headers)))
            if not self._authed():
                return
            parts = self.path.split("?")[0].strip("/").split("/")
            action = fake.actions.get(parts[3]) if len(parts) > 3 else None
            if action is None:
                return self._error(404, "not_found", "That action was not found.")
            if parts[-1] == "decision":
                if action["polls_before_decision"] > 0:
                    action["polls_before_decision"] -= 1
                    state = "pending"
                else:
                    state = action["verdict"]
                return self._send(200, {"id": action["id"], "state": state, "decided": state != "pending", "revision": 1,
                                        "payloadHash": HASH, "reason": action.get("note"), "expiresAt": None})
            return self._send(200, {"id": action["id"], "state": action["verdict"], "execution": None})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(("POST", self.path, dict(self.headers), body))
            if not self._authed():
                return
            if self.path == "/api/v1/actions":
                code = body.get("code", "")
                if "limit" in code:
                    return self._error(429, "rate_limited", "Slow down.", {"Retry-After": "7"})
                if "unknown_field" in body:
                    return self._error(400, "invalid_input", "Unrecognized key: unknown_field")
                if body.get("tool") == "refund_invoice":
                    return self._error(403, "tool_not_allowed", "This API key may not propose refund_invoice.")
                if "import os" in code:
                    return self._send(200, {"state": "denied", "id": "denied-1", "reason": "The code was blocked before review: line 1: os", "ruleId": None,
                                            "riskLevel": "high", "replayed": False, "actionState": "denied"})
                key = self.headers.get("Idempotency-Key")
                if key and key in fake.keys:
                    action = fake.actions[fake.keys[key]]
                    return self._send(200, {"state": "pending", "id": action["id"], "revision": 1, "payloadHash": HASH,
                                            "expiresAt": "2030-01-01T00:00:00.000Z", "riskLevel": "medium", "quorum": 1,
                                            "policyReason": "review", "replayed": True, "actionState": action["verdict"]},
                                      headers={"Idempotent-Replayed": "true"})
                action_id = f"a{len(fake.actions) + 1}"
                verdict = next((state for word, state in VERDICTS if word in code), "approved")
                fake.actions[action_id] = {"id": action_id, "code": code, "verdict": verdict, "polls_before_decision": 1,
                                           "note": NOTES.get(verdict)}
                if key:
                    fake.keys[key] = action_id
                return self._send(201, {"state": "pending", "id": action_id, "revision": 1, "payloadHash": HASH,
                                        "expiresAt": "2030-01-01T00:00:00.000Z", "riskLevel": "medium", "quorum": 1, "policyReason": "review",
                                        "replayed": False, "actionState": "pending"})
            parts = self.path.strip("/").split("/")
            action = fake.actions.get(parts[3])
            if action is None:
                return self._error(404, "not_found", "That action was not found.")
            if parts[-1] == "execute":
                if not self.headers.get("Idempotency-Key"):
                    return self._error(400, "idempotency_key_required", "Send an Idempotency-Key header.")
                if action["verdict"] != "approved":
                    return self._error(409, f"not_executable.{action['verdict']}", "Not approved.")
                if "changed state" in action["code"]:
                    lines = [{"type": "error", "code": "state_changed", "message": "The state this approval rested on changed since review, so it was invalidated."}]
                    return self._send(200, "".join(json.dumps(x) + "\n" for x in lines).encode(), content_type="application/x-ndjson")
                if "sleep" in action["code"]:
                    fake.executions += 1
                    lines = [{"type": "stdout", "text": "starting\n"},
                             {"type": "result", "replayed": False, "state": "failed", "exitCode": None, "durationMs": 10000, "truncated": False,
                              "timedOut": True, "isolation": "container", "executionId": "e2"}]
                    return self._send(200, "".join(json.dumps(x) + "\n" for x in lines).encode(), content_type="application/x-ndjson")
                if action.get("executed"):
                    lines = [{"type": "result", "replayed": True, "state": "succeeded", "exitCode": 0, "stdout": "hi\n", "stderr": "",
                              "durationMs": 5, "truncated": False, "isolation": "container", "executionId": "e1"}]
                else:
                    action["executed"] = True
                    fake.executions += 1
                    lines = [{"type": "stdout", "text": "hi\n"}, {"type": "heartbeat"}, {"type": "stderr", "text": "warn\n"},
                             {"type": "result", "replayed": False, "state": "succeeded", "exitCode": 0, "durationMs": 5,
                              "truncated": False, "isolation": "container", "executionId": "e1"}]
                return self._send(200, "".join(json.dumps(x) + "\n" for x in lines).encode(), content_type="application/x-ndjson")
            if parts[-1] == "cancel":
                action["verdict"] = "cancelled"
                fake.cancelled.append(action["id"])
                return self._send(200, {"id": action["id"], "state": "cancelled"})
            return self._error(404, "not_found", "No such route.")

    return Handler


class ServerCase(unittest.TestCase):
    def setUp(self):
        self.fake = Fake()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.fake))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.cs = Countersign(self.url, KEY)

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()


class ClientTest(ServerCase):
    def test_submit_wait_execute_streams_output_once(self):
        sub = self.cs.submit_code("print('hi')", reason="demo")
        self.assertEqual(sub.state, "pending")
        self.assertEqual(sub.payload_hash, HASH)
        decision = self.cs.wait_for_decision(sub.id, timeout=10, poll_seconds=1)
        self.assertEqual(decision.state, "approved")
        seen = []
        result = self.cs.execute(sub.id, "key-1", payload_hash=decision.payload_hash, on_output=lambda s, t: seen.append((s, t)))
        self.assertEqual((result.state, result.exit_code, result.stdout, result.stderr, result.replayed), ("succeeded", 0, "hi\n", "warn\n", False))
        self.assertEqual(seen, [("stdout", "hi\n"), ("stderr", "warn\n")])
        again = self.cs.execute(sub.id, "key-1")
        self.assertTrue(again.replayed)
        self.assertEqual(again.stdout, "hi\n")
        self.assertEqual(self.fake.executions, 1)
        posted = [r for r in self.fake.requests if r[0] == "POST" and r[1].endswith("/execute")]
        self.assertEqual(posted[0][2].get("Idempotency-Key"), "key-1")
        self.assertEqual(posted[0][3], {"payloadHash": HASH})
        self.assertEqual(self.fake.requests[0][3], {"code": "print('hi')", "language": "python", "reason": "demo"})

    def test_rejection_raises_with_the_reviewers_reason(self):
        sub = self.cs.submit_code("reject me")
        with self.assertRaises(RejectedError) as caught:
            self.cs.wait_for_decision(sub.id, timeout=10, poll_seconds=1)
        self.assertEqual(caught.exception.reason, "Not on production data")
        self.assertIsInstance(caught.exception, PermissionError)

    def test_expiry_and_timeout(self):
        with self.assertRaises(ExpiredError):
            self.cs.wait_for_decision(self.cs.submit_code("expire").id, timeout=10, poll_seconds=1)
        with self.assertRaises(NotDecidedError):
            self.cs.wait_for_decision(self.cs.submit_code("forever").id, timeout=0.5, poll_seconds=0)

    def test_errors_are_typed_with_the_servers_code(self):
        with self.assertRaises(AuthenticationError) as auth:
            Countersign(self.url, "wrong").submit_code("print(1)")
        self.assertEqual(auth.exception.code, "invalid_api_key")
        with self.assertRaises(PermissionDeniedError) as scope:
            self.cs.submit_tool("refund_invoice", {"invoice_number": "INV-1"})
        self.assertEqual(scope.exception.code, "tool_not_allowed")
        with self.assertRaises(RateLimitedError) as limited:
            self.cs.submit_code("limit")
        self.assertEqual(limited.exception.retry_after, 7.0)
        with self.assertRaises(InvalidRequestError):
            self.cs._json("POST", "/api/v1/actions", {"unknown_field": 1})
        sub = self.cs.submit_code("forever")
        with self.assertRaises(Exception) as not_ready:
            self.cs.execute(sub.id)
        self.assertEqual(getattr(not_ready.exception, "code", None), "not_executable.pending")

    def test_cancel(self):
        sub = self.cs.submit_code("forever")
        self.assertEqual(self.cs.cancel(sub.id, "changed my mind"), {"id": sub.id, "state": "cancelled"})

    def test_a_timeout_is_reported_as_timed_out_with_its_reason(self):
        sub = self.cs.submit_code("import time; time.sleep(60)")
        decision = self.cs.wait_for_decision(sub.id, timeout=10, poll_seconds=1)
        result = self.cs.execute(sub.id, payload_hash=decision.payload_hash)
        self.assertEqual((result.state, result.timed_out, result.succeeded), ("failed", True, False))
        self.assertEqual(result.reason, "Timed out: the sandbox stopped the code at its time limit after 10000 ms.")
        self.assertEqual(result.stdout, "starting\n")

    def test_failure_reasons(self):
        from countersign import ExecutionResult
        self.assertIsNone(ExecutionResult(state="succeeded", execution_id="e").reason)
        self.assertEqual(ExecutionResult(state="failed", execution_id="e", exit_code=2).reason, "The code exited with code 2.")
        self.assertIn("unknown", ExecutionResult(state="unknown", execution_id="e").reason)

    def test_an_idempotency_key_makes_a_retry_the_same_action(self):
        first = self.cs.submit_code("forever", idempotency_key="call_1")
        again = self.cs.submit_code("forever", idempotency_key="call_1")
        self.assertEqual((first.replayed, again.replayed, again.id, again.action_state), (False, True, first.id, "pending"))
        self.assertNotEqual(self.cs.submit_code("forever").id, first.id)  # no key: a new action
        sent = [r[2].get("Idempotency-Key") for r in self.fake.requests if r[0] == "POST" and r[1] == "/api/v1/actions"]
        self.assertEqual(sent, ["call_1", "call_1", None])


class GatedExecutorTest(ServerCase):
    def test_runs_approved_blocks_remotely(self):
        submitted = []
        executor = GatedExecutor(self.cs, decision_timeout=10, on_submitted=lambda i, c: submitted.append(i))
        result = executor.execute_code_blocks([Block("print('hi')")])
        self.assertEqual(result.exit_code, 0)
        self.assertEqual(result.output, "hi\nwarn\n")
        self.assertEqual(len(submitted), 1)

    def test_a_rejection_reaches_the_assistant_as_a_failed_result_with_the_reason(self):
        executor = GatedExecutor(self.cs, decision_timeout=10)
        result = executor.execute_code_blocks([Block("reject this"), Block("print('after')")])
        self.assertNotEqual(result.exit_code, 0)
        self.assertIn("A reviewer rejected this code block; it was not run.", result.output)
        self.assertIn("Not on production data", result.output)
        self.assertEqual(self.fake.executions, 0)
        # The block after it was not submitted: it usually depends on the one refused.
        self.assertEqual(len(self.fake.actions), 1)

    def test_every_way_the_gate_ends_a_block_is_a_failed_result_never_an_exception(self):
        executor = GatedExecutor(self.cs, decision_timeout=10)
        cases = [
            ("import os", "denied this code block before review", "blocked before review: line 1: os"),
            ("expire me", "expired before it was run", None),
            ("cancel me", "approval request was cancelled", "Withdrawn by the requester"),
            ("invalidate me", "approval was invalidated", "The invoice changed since review"),
            ("changed state", "approved but not run", "rested on changed"),
        ]
        for code, says, reason in cases:
            with self.subTest(code=code):
                result = executor.execute_code_blocks([Block(code)])
                self.assertEqual(result.exit_code, 1)
                self.assertIn(says, result.output)
                if reason:
                    self.assertIn(reason, result.output)
        self.assertEqual(self.fake.executions, 0)

    def test_no_decision_in_time_withdraws_the_block(self):
        executor = GatedExecutor(self.cs, decision_timeout=0.5)
        result = executor.execute_code_blocks([Block("forever")])
        self.assertEqual(result.exit_code, 1)
        self.assertIn("withdrawn and not run", result.output)
        self.assertEqual(self.fake.cancelled, ["a1"])

    def test_a_timeout_is_a_failed_result_saying_so(self):
        result = GatedExecutor(self.cs, decision_timeout=10).execute_code_blocks([Block("import time; time.sleep(60)")])
        self.assertNotEqual(result.exit_code, 0)
        self.assertEqual(result.output, "starting\nTimed out: the sandbox stopped the code at its time limit after 10000 ms.\n")

    def test_other_languages_never_run(self):
        executor = GatedExecutor(self.cs, decision_timeout=10)
        result = executor.execute_code_blocks([Block("rm -rf /", language="bash")])
        self.assertEqual(result.exit_code, 1)
        self.assertIn("Refused", result.output)
        self.assertEqual(self.fake.executions, 0)


if __name__ == "__main__":
    unittest.main()
