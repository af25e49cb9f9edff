#!/usr/bin/env python3
"""
Gated data analysis: the agent's Python runs only after a reviewer approves it in the console,
and then in Countersign's sandbox, not on this machine.

    COUNTERSIGN_URL=http://localhost:3000 COUNTERSIGN_API_KEY=cs_live_... python3 examples/gated_analysis.py

Create the key in the console (Admin -> API keys) with the run_python tool. Then open the review
queue as a reviewer and approve (or reject, with a reason) the block this script submits.
With AutoGen installed, the same executor plugs into a UserProxyAgent (see the end of this file).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from countersign import Countersign  # noqa: E402
from countersign.autogen import AUTOGEN_AVAILABLE, GatedExecutor  # noqa: E402

CODE = '''
import json
buckets = [
    {"name": "logs-2019", "last_access_days": 912, "size_gb": 420},
    {"name": "www-assets", "last_access_days": 1, "size_gb": 12},
    {"name": "tmp-exports", "last_access_days": 400, "size_gb": 95},
]
stale = [b for b in buckets if b["last_access_days"] > 365]
for b in stale:
    print(f"stale: {b['name']} ({b['size_gb']} GB, {b['last_access_days']} days)")
print(json.dumps({"stale": len(stale), "reclaimable_gb": sum(b["size_gb"] for b in stale)}))
'''


class Block:
    """The shape of AutoGen's CodeBlock (language + code), so this runs without AutoGen."""

    def __init__(self, code: str, language: str = "python"):
        self.code = code
        self.language = language


def main() -> int:
    url = os.environ.get("COUNTERSIGN_URL", "http://localhost:3000")
    key = os.environ.get("COUNTERSIGN_API_KEY")
    if not key:
        print("Set COUNTERSIGN_API_KEY (create one in the console: Admin -> API keys).", file=sys.stderr)
        return 2
    client = Countersign(url, key)
    executor = GatedExecutor(
        client,
        decision_timeout=float(os.environ.get("COUNTERSIGN_DECISION_TIMEOUT", "900")),
        reason="List stale buckets (read-only analysis)",
        on_submitted=lambda action_id, _code: print(f"Waiting for a reviewer: {url}/actions/{action_id}", flush=True),
        on_output=lambda stream, text: print(text, end="", file=sys.stderr if stream == "stderr" else sys.stdout, flush=True),
    )
    # A rejection (or a denial, expiry, cancellation) comes back as a failed result whose output
    # carries the reason, exactly as the assistant in an AutoGen chat would see it.
    result = executor.execute_code_blocks([Block(CODE)])
    if result.exit_code != 0:
        print(result.output, end="")
    print(f"exit code {result.exit_code}")
    return result.exit_code


if __name__ == "__main__":
    if AUTOGEN_AVAILABLE and os.environ.get("COUNTERSIGN_WITH_AUTOGEN"):
        # With AutoGen: the assistant writes the code, the gate runs it after approval.
        from autogen import AssistantAgent, UserProxyAgent  # type: ignore

        gate = UserProxyAgent(
            "gate",
            code_execution_config={"executor": GatedExecutor(Countersign(os.environ["COUNTERSIGN_URL"], os.environ["COUNTERSIGN_API_KEY"]))},
            human_input_mode="NEVER",
        )
        coder = AssistantAgent("coder", llm_config={"config_list": [{"model": os.environ.get("MODEL", "gpt-4o"), "api_key": os.environ.get("OPENAI_API_KEY", "")}]})
        gate.initiate_chat(coder, message="Write Python that lists stale buckets from an inline dataset. Do NOT delete anything.")
        sys.exit(0)
    sys.exit(main())
