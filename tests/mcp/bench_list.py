"""Benchmark (prints figures, asserts nothing): round-trip time of a `list_messages` call on an
inbox of 1,000 messages through the Python MCP SDK over stdio, against the same listing by the
CLI (`filebox list inbox --json`, a whole process each time).

    FILEBOX_BIN=target/release/filebox tests/mcp/.venv/bin/python tests/mcp/bench_list.py [--messages N] [--calls N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from conftest import Mailroom, filebox_bin  # noqa: E402


def listed(text: str) -> int:
    """How many messages a list_messages text lists: a line each (`* 60bd0e69 ER dev 3h Title`)."""
    return sum(1 for line in text.splitlines() if line[:1] in "* " and line[2:10].isalnum())

def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms   (n={len(ordered)})"


def fill_inbox(room: Mailroom, count: int) -> None:
    def send(i: int) -> None:
        room.filebox("send", "qa", "ER", f"Benchmark message {i}\n\nBody of message {i}.")

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(send, range(count)))


def time_cli(room: Mailroom, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        done = subprocess.run(
            [filebox_bin(), "list", "inbox", "--json"], env=room.env("qa"), capture_output=True, check=True
        )
        samples.append(time.perf_counter() - started)
        assert done.stdout
    return samples


async def time_mcp(room: Mailroom, calls: int, mode: str, expected: int) -> list[float]:
    samples = []
    params = StdioServerParameters(command=filebox_bin(), args=["mcp"], env=room.env("qa"))
    async with Client(params, mode=mode) as client:
        await client.list_tools()  # the SDK validates results against the listed output schemas
        for _ in range(calls + 3):
            started = time.perf_counter()
            result = await client.call_tool("list_messages", {"folder": "inbox"})
            samples.append(time.perf_counter() - started)
            assert not result.is_error and listed(result.content[0].text) == expected
    return samples[3:]  # the first calls warm the page cache and the client


def time_raw(room: Mailroom, calls: int, expected: int) -> list[float]:
    """The same call as bare JSON-RPC lines on the server's stdio: the server's share of the
    round trip, without the SDK's result validation."""
    server = subprocess.Popen(
        [filebox_bin(), "mcp"], env=room.env("qa"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdin and server.stdout

    def send(message: dict) -> None:
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    def answer(request_id: int) -> dict:
        while True:
            message = json.loads(server.stdout.readline())
            if message.get("id") == request_id:
                return message

    client = {"name": "bench", "version": "1"}
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    samples = []
    try:
        for i in range(1, calls + 4):
            started = time.perf_counter()
            send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": "list_messages", "arguments": {"folder": "inbox"}}})
            result = answer(i)["result"]
            samples.append(time.perf_counter() - started)
            assert listed(result["content"][0]["text"]) == expected
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    return samples[3:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        room = Mailroom(root, root / "config.json")
        room.filebox("--config", str(room.config), "init", "--agent", "qa", "--mailbox", str(root / "qa"))
        room.filebox("--config", str(room.config), "agents", "add", "dev", "--mailbox", str(root / "dev"))
        started = time.perf_counter()
        fill_inbox(room, args.messages)
        print(f"filled the inbox with {args.messages} messages in {time.perf_counter() - started:.1f} s")
        listing = json.loads(room.filebox("list", "inbox", "--json", agent="qa"))
        size = len(json.dumps(listing))
        print(f"binary: {filebox_bin()}  listing JSON: {size / 1024:.0f} KiB  cores: {os.cpu_count()}")
        print(f"CLI  `filebox list inbox --json` (process per call)   {percentiles(time_cli(room, args.calls))}")
        print(f"MCP  list_messages, bare JSON-RPC lines, stdio        {percentiles(time_raw(room, args.calls, len(listing)))}")
        for mode in ("auto", "legacy"):
            samples = anyio.run(time_mcp, room, args.calls, mode, len(listing))
            label = "2026-07-28" if mode == "auto" else "2025-11-25"
            print(f"MCP  list_messages, Python SDK, stdio, {label}     {percentiles(samples)}")


if __name__ == "__main__":
    main()
