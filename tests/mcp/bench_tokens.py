"""Benchmark (prints figures, asserts nothing): the agent's token bill, what a model pays for in
characters, measured through the Python MCP SDK over stdio: the tool list (what a client puts
in the model's context: name, description, input schema; and the whole `tools/list` result)
and `list_messages` on an inbox of 100 messages (text content, which the model reads, and
structured content, for programs), by default and with `limit` 100.

    FILEBOX_BIN=target/debug/filebox tests/mcp/.venv/bin/python tests/mcp/bench_tokens.py \\
        [--before OLD_BINARY] [--messages 100]

With `--before`, the same figures for another binary (an older build) in a column beside.
"""

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from conftest import filebox_bin  # noqa: E402

SENDERS = ["dev", "ops", "lead", "design-review"]
KINDS = ["ER", "BR", "DIS", "SU", "ASK", "ACK"]
# Titles as agents write them: a few words to a full sentence.
SUBJECTS = [
    "Add bulk import to the user management module",
    "Login fails on Safari when the session cookie is older than a day",
    "Nightly build is red again",
    "Which database migration tool should we standardise on?",
    "Status: payment service refactor, step 3 of 5 done",
    "Acknowledged: the API freeze starts Friday",
    "Crash in the PDF exporter with right-to-left text",
    "Please review the new onboarding flow copy",
    "Rate limiter drops requests under burst load",
    "Move the docs site to the new domain",
]


def json_size(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def run(binary: str, *args: str, env: dict) -> str:
    import subprocess

    done = subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"filebox {args}: {done.stderr}"
    return done.stdout.strip()


def make_mailroom(binary: str, root: Path, count: int) -> dict:
    """A config with qa (the served agent) and the senders; `count` messages in qa's inbox, a
    fifth of them read."""
    config = root / "config.json"
    base = dict(os.environ, FILEBOX_CONFIG=str(config))
    run(binary, "--config", str(config), "init", "--agent", "qa", "--mailbox", str(root / "qa"), env=base)
    for sender in SENDERS:
        run(binary, "agents", "add", sender, "--mailbox", str(root / sender), env=base)
    rng = random.Random(12)
    ids = []
    for i in range(count):
        sender = SENDERS[i % len(SENDERS)]
        title = f"{SUBJECTS[rng.randrange(len(SUBJECTS))]} (#{i})"
        body = f"{title}\n\nDetails of item {i}: what happened, what is wanted, by when."
        out = run(binary, "send", "qa", KINDS[i % len(KINDS)], "--title", title, body,
                  env=dict(base, FILEBOX_AGENT=sender))
        ids.append(out.splitlines()[-1])
    for message_id in ids[::5]:
        run(binary, "read", "inbox", message_id, env=dict(base, FILEBOX_AGENT="qa"))
    return dict(base, FILEBOX_AGENT="qa")


async def measure(binary: str, count: int) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        env = make_mailroom(binary, Path(tmp), count)
        params = StdioServerParameters(command=binary, args=["mcp"], env=env)
        async with Client(params) as client:
            tools = await client.list_tools()
            figures = {}
            dumped = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.tools]
            figures["tools"] = len(dumped)
            figures["tool list, model-visible (name + description + input schema)"] = sum(
                len(t["name"]) + len(t.get("description", "")) + json_size(t["inputSchema"]) for t in dumped
            )
            figures["tool list, whole tools/list result"] = json_size(dumped)
            for label, args in [("default", {}), (f"limit {count}", {"limit": count})]:
                result = await client.call_tool("list_messages", args)
                assert not result.is_error, result
                text = "".join(block.text for block in result.content if block.type == "text")
                # The text is the whole answer (no structured content since issue 36): a line a message.
                listed = [line for line in text.splitlines() if line[:1] in "* " and line[2:10].isalnum()]
                figures[f"list_messages {label}: messages listed"] = len(listed)
                figures[f"list_messages {label}: text"] = len(text)
                figures[f"list_messages {label}: structured content"] = (
                    json_size(result.structured_content) if result.structured_content is not None else 0
                )
            figures["_sample"] = text
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another filebox binary to measure beside")
    parser.add_argument("--messages", type=int, default=100)
    options = parser.parse_args()
    columns = []
    if options.before:
        columns.append(("before", str(Path(options.before).resolve())))
    columns.append(("now", filebox_bin()))
    results = [(name, anyio.run(measure, binary, options.messages)) for name, binary in columns]
    keys = [k for k in results[-1][1] if not k.startswith("_")]
    keys += [k for name, r in results for k in r if k not in keys and not k.startswith("_")]
    width = max(map(len, keys))
    print(f"{'characters':<{width}}  " + "  ".join(f"{name:>8}" for name, _ in results))
    for key in keys:
        print(f"{key:<{width}}  " + "  ".join(f"{r.get(key, '-'):>8}" for _, r in results))
    print(f"\nlist_messages text, limit {options.messages} (now), first lines:")
    print("\n".join(results[-1][1]["_sample"].splitlines()[:4]))


if __name__ == "__main__":
    main()
