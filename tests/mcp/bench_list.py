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
            assert not result.is_error and len(result.structured_content["messages"]) == expected
    return samples[3:]  # the first calls warm the page cache and the client


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
        for mode in ("auto", "legacy"):
            samples = anyio.run(time_mcp, room, args.calls, mode, len(listing))
            label = "2026-07-28" if mode == "auto" else "2025-11-25"
            print(f"MCP  list_messages, Python SDK, stdio, {label}     {percentiles(samples)}")


if __name__ == "__main__":
    main()
