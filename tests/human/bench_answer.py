"""Benchmark (prints figures, asserts nothing): an answer to a question, from the human's
`email.reply` request to the asking agent's tool result, without a browser. The agent is
`ask.py` (the Python MCP client on `filebox mcp` the page test uses); the human answers over
HTTP JSON-RPC as the page does. The baseline is the `email.reply` request alone (the hub's
durable write of the answer). The page test's figure adds Chromium's own time to these.

    FILEBOX_BIN=target/release/filebox tests/human/.venv/bin/python tests/human/bench_answer.py [--questions 50]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent


def percentile(values: list[float], p: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=50)
    questions = parser.parse_args().questions
    filebox = os.path.realpath(os.environ.get("FILEBOX_BIN", "target/debug/filebox"))
    root = Path(tempfile.mkdtemp(prefix="filebox-bench-answer-"))
    config = root / "config.json"
    config.write_text(json.dumps({
        "current_agent_id": "qa",
        "agents": {"qa": {"mailbox_path": str(root / "qa")}, "me": {"mailbox_path": str(root / "me"), "kind": "human"}},
    }))
    env = dict(os.environ, FILEBOX_CONFIG=str(config))
    hub = subprocess.Popen([filebox, "serve", "--listen", "127.0.0.1:0"], env=env, stdout=subprocess.PIPE, text=True)
    agent = subprocess.Popen(
        [sys.executable, str(HERE / "ask.py"), filebox], env=dict(env, FILEBOX_AGENT="qa"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        url = hub.stdout.readline().strip()
        assert agent.stdout.readline().strip() == "ready"

        def rpc(method: str, params: dict) -> dict:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
            request = urllib.request.Request(url + "rpc", body, {"content-type": "application/json"})
            answer = json.loads(urllib.request.urlopen(request).read())
            assert "result" in answer, answer
            return answer["result"]

        results, replies = [], []
        for i in range(questions):
            call = {"tool": "ask_question", "arguments": {"project_directory": "/bench", "question": f"Bench {i}?"}}
            agent.stdin.write(json.dumps(call) + "\n")
            agent.stdin.flush()
            # The question's arrival, as the page learns it (it lists again on each event).
            while not (open_questions := rpc("questions.open", {"agent": "me"})["questions"]):
                time.sleep(0.005)
            sent = time.time() * 1000
            rpc("email.reply", {"from": "me", "id": open_questions[0]["id"], "body": f"answer {i}"})
            replies.append(time.time() * 1000 - sent)
            result = json.loads(agent.stdout.readline())
            assert result["content"][0]["text"] == f"answer {i}", result
            results.append(result["at"] - sent)
    finally:
        agent.stdin.close()
        agent.kill()
        hub.kill()
        # The folder goes once both have exited: they write there until then.
        agent.wait()
        hub.wait()
        shutil.rmtree(root, ignore_errors=True)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"email.reply -> MCP tool result, {questions} questions: p50 {percentile(results, 50):.1f} ms, "
          f"p95 {percentile(results, 95):.1f} ms")
    print(f"baseline, email.reply alone: p50 {percentile(replies, 50):.1f} ms, p95 {percentile(replies, 95):.1f} ms")
    print(f"binary {filebox}; load average {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
