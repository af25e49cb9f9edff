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
    AuthenticationError, Countersign, DeniedError, ExpiredError, InvalidRequestError, NotDecidedError,
    PermissionDeniedError, RateLimitedError, RejectedError,
)
from countersign.autogen import GatedExecutor  # noqa: E402

KEY = "cs_live_abcdefabcdef_" + "A" * 43
HASH = "a" * 64


class Fake:
    """State of the fake server: actions by id, with a scripted decision."""

    def __init__(self):
        self.actions = {}
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
                    return self._send(200, {"state": "denied", "id": "denied-1", "reason": "The code was blocked before review: line 1: os", "ruleId": None, "riskLevel": "high"})
                action_id = f"a{len(fake.actions) + 1}"
                verdict = "rejected" if "reject" in code else "expired" if "expire" in code else "pending" if "forever" in code else "approved"
                fake.actions[action_id] = {"id": action_id, "code": code, "verdict": verdict, "polls_before_decision": 1,
                                           "note": "Not on production data" if verdict == "rejected" else None}
                return self._send(201, {"state": "pending", "id": action_id, "revision": 1, "payloadHash": HASH,
                                        "expiresAt": "2030-01-01T00:00:00.000Z", "riskLevel": "medium", "quorum": 1, "policyReason": "review"})
            parts = self.path.strip("/").split("/")
            action = fake.actions.get(parts[3])
            if action is None:
                return self._error(404, "not_found", "That action was not found.")
            if parts[-1] == "execute":
                if not self.headers.get("Idempotency-Key"):
                    return self._error(400, "idempotency_key_required", "Send an Idempotency-Key header.")
                if action["verdict"] != "approved":
                    return self._error(409, f"not_executable.{action['verdict']}", "Not approved.")
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


class GatedExecutorTest(ServerCase):
    def test_runs_approved_blocks_remotely(self):
        submitted = []
        executor = GatedExecutor(self.cs, decision_timeout=10, on_submitted=lambda i, c: submitted.append(i))
        result = executor.execute_code_blocks([Block("print('hi')")])
        self.assertEqual(result.exit_code, 0)
        self.assertEqual(result.output, "hi\nwarn\n")
        self.assertEqual(len(submitted), 1)

    def test_rejection_raises_permission_error_with_reason(self):
        executor = GatedExecutor(self.cs, decision_timeout=10)
        with self.assertRaises(PermissionError) as caught:
            executor.execute_code_blocks([Block("reject this")])
        self.assertIn("Not on production data", str(caught.exception))

    def test_blocked_code_and_other_languages_never_run(self):
        executor = GatedExecutor(self.cs, decision_timeout=10)
        with self.assertRaises(DeniedError):
            executor.execute_code_blocks([Block("import os")])
        result = executor.execute_code_blocks([Block("rm -rf /", language="bash")])
        self.assertEqual(result.exit_code, 1)
        self.assertIn("Refused", result.output)
        self.assertEqual(self.fake.executions, 0)


if __name__ == "__main__":
    unittest.main()
