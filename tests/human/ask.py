"""The asking agent for the page tests: a Python MCP client (PyPI `mcp`) on `filebox mcp`.

Reads JSON lines on stdin: `{"tool", "arguments"}` starts that call (one at a time), and
`{"cancel": true}` cancels the call under way. Prints one JSON line per call: its content
blocks, structured content, how many progress notifications came, and when it ended (ms since
the epoch); a cancelled call prints `{"cancelled": true}`. A call with `"announce_progress":
true` also prints `{"progress_seen": true}` when its first progress notification arrives.
Prints `ready` once connected."""

import json
import os
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def block(content) -> dict:
    out = {"type": content.type}
    for key in ("text", "data", "mime_type"):
        if hasattr(content, key):
            out[key] = getattr(content, key)
    if content.type == "resource":
        resource = content.resource
        out.update(uri=str(resource.uri), mime_type=resource.mime_type, blob=getattr(resource, "blob", None))
    return out


def emit(line: dict) -> None:
    print(json.dumps(line), flush=True)


async def run(client: Client, call: dict, scope: anyio.CancelScope) -> None:
    progress = 0

    async def on_progress(done, total, message):
        nonlocal progress
        progress += 1
        if progress == 1 and call.get("announce_progress"):
            emit({"progress_seen": True})

    with scope:
        result = await client.call_tool(call["tool"], call["arguments"], progress_callback=on_progress)
        emit({
            "at": time.time() * 1000,
            "is_error": result.is_error,
            "content": [block(c) for c in result.content],
            "structured": result.structured_content,
            "progress": progress,
        })
    if scope.cancelled_caught:
        emit({"cancelled": True, "progress": progress})


async def main(filebox: str) -> None:
    server = StdioServerParameters(command=filebox, args=["mcp"], env=dict(os.environ))
    lines = anyio.wrap_file(sys.stdin)
    async with Client(server) as client, anyio.create_task_group() as tasks:
        print("ready", flush=True)
        scope = anyio.CancelScope()
        async for line in lines:
            call = json.loads(line)
            if call.get("cancel"):
                scope.cancel()
                continue
            scope = anyio.CancelScope()
            tasks.start_soon(run, client, call, scope)
        tasks.cancel_scope.cancel()


anyio.run(main, sys.argv[1])
