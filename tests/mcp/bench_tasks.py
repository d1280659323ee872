"""Benchmark (prints figures, asserts nothing): a human's answer to the asking agent's tool
result, through a task (`ask_question` answered with a task, `tasks/get` polled at the interval
the server suggests; `tasks_extension.py`) beside the blocking call, alternating in one run on
one `filebox mcp` each. The human answers with `filebox reply` (another process); a figure is
from the start of that command to the tool result at the client. The baseline is the
`filebox reply` command alone.

    FILEBOX_BIN=target/release/filebox tests/mcp/.venv/bin/python tests/mcp/bench_tasks.py [--questions 30]
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tasks_extension import Tasks


def percentile(values: list[float], p: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=30)
    questions = parser.parse_args().questions
    filebox = os.path.realpath(os.environ.get("FILEBOX_BIN", "target/debug/filebox"))
    root = Path(tempfile.mkdtemp(prefix="filebox-bench-tasks-"))
    config = root / "config.json"
    config.write_text(json.dumps({
        "current_agent_id": "qa",
        "agents": {"qa": {"mailbox_path": str(root / "qa")}, "me": {"mailbox_path": str(root / "me"), "kind": "human"}},
    }))
    env = dict(os.environ, FILEBOX_CONFIG=str(config))

    def human(*args: str) -> str:
        done = subprocess.run([filebox, *args], env=dict(env, FILEBOX_AGENT="me"), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def open_question() -> str:
        while not (listed := json.loads(human("--json", "questions"))["questions"]):
            time.sleep(0.005)
        return listed[0]["id"]

    server = StdioServerParameters(command=filebox, args=["mcp"], env=dict(env, FILEBOX_AGENT="qa"))
    figures: dict[str, list[float]] = {"blocking": [], "task": []}
    replies: list[float] = []
    try:
        async with Client(server) as blocking, Client(server, mode="2026-07-28", extensions=[Tasks()]) as tasked:
            for i in range(questions):
                for name, client in (("blocking", blocking), ("task", tasked)):
                    ended = {}

                    async def ask():
                        result = await client.call_tool("ask_question", {"project_directory": "/bench", "question": f"Bench {i}?"})
                        ended["at"] = time.perf_counter()
                        ended["text"] = result.content[0].text

                    async with anyio.create_task_group() as group:
                        group.start_soon(ask)
                        question = await anyio.to_thread.run_sync(open_question)
                        sent = time.perf_counter()
                        await anyio.to_thread.run_sync(human, "reply", question, f"answer {i}")
                        replies.append((time.perf_counter() - sent) * 1000)
                    assert ended["text"] == f"answer {i}", ended
                    figures[name].append((ended["at"] - sent) * 1000)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    for name, values in figures.items():
        print(f"filebox reply -> tool result, {name}, {questions} questions: "
              f"p50 {percentile(values, 50):.1f} ms, p95 {percentile(values, 95):.1f} ms")
    print(f"baseline, filebox reply alone: p50 {percentile(replies, 50):.1f} ms, p95 {percentile(replies, 95):.1f} ms")
    print(f"binary {filebox}; load average {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    anyio.run(main)
