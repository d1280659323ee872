"""The asking agent for the page tests: a Python MCP client (PyPI `mcp`) on `filebox mcp` that
calls the tools named by the JSON lines it reads on stdin, one at a time, and prints each
result as a JSON line (content blocks, structured content, and when it arrived, in ms since
the epoch). Prints `ready` once connected."""

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
    return out


async def main(filebox: str) -> None:
    server = StdioServerParameters(command=filebox, args=["mcp"], env=dict(os.environ))
    async with Client(server) as client:
        print("ready", flush=True)
        for line in sys.stdin:
            call = json.loads(line)
            result = await client.call_tool(call["tool"], call["arguments"])
            print(json.dumps({
                "at": time.time() * 1000,
                "is_error": result.is_error,
                "content": [block(c) for c in result.content],
                "structured": result.structured_content,
            }), flush=True)


anyio.run(main, sys.argv[1])
