"""`filebox mcp` over stdio, driven by the official Python SDK (PyPI `mcp`), in both the
2026-07-28 lifecycle (`auto`) and the initialize handshake (`legacy`)."""

import time
import warnings

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from conftest import Mailroom, connect

pytestmark = pytest.mark.anyio

TOOLS = {
    "list_messages": "read_only",
    "read_message": "read_only",
    "send_message": "additive",
    "resolve_message": "destructive",
    "reject_message": "destructive",
    "hold_message": "destructive",
    "list_agents": "read_only",
    "wait_for_messages": "read_only",
}


def text(result) -> str:
    return "\n".join(block.text for block in result.content)


async def test_tools_are_listed_with_annotations(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for name, effect in TOOLS.items():
            hints = tools[name].annotations
            assert hints.read_only_hint is (effect == "read_only"), name
            if effect != "read_only":
                assert hints.destructive_hint is (effect == "destructive"), name
            assert tools[name].output_schema is not None, name
        send = tools["send_message"].input_schema
        assert {"to", "type", "content"} <= set(send["required"])
        assert {"cc", "title", "reply_to"} <= set(send["properties"])


async def test_every_tool_works_on_a_real_mailbox(mailroom: Mailroom, mode: str):
    bug = mailroom.send_to_qa("BR", "The save button does nothing")
    idea = mailroom.send_to_qa("ER", "Add a dark mode")
    wish = mailroom.send_to_qa("ER", "Rewrite it all in COBOL")
    async with connect(mailroom, mode) as client:
        agents = await client.call_tool("list_agents", {})
        assert not agents.is_error
        assert agents.structured_content["me"] == "qa"
        assert {a["id"] for a in agents.structured_content["agents"]} == {"qa", "dev"}

        listed = await client.call_tool("list_messages", {"folder": "inbox"})
        assert not listed.is_error
        ids = [m["id"] for m in listed.structured_content["messages"]]
        assert ids == [bug, idea, wish]
        assert "Add a dark mode" in text(listed)
        only_er = await client.call_tool("list_messages", {"type": "ER", "limit": 1})
        assert [m["id"] for m in only_er.structured_content["messages"]] == [idea]

        read = await client.call_tool("read_message", {"id": bug[:8]})
        assert not read.is_error
        assert read.structured_content["body"] == "The save button does nothing"
        assert read.structured_content["sender"] == "dev"
        assert "## Original Request/Content" in text(read)

        held = await client.call_tool("hold_message", {"id": idea, "reason": "needs a design"})
        assert held.structured_content["folder"] == "hold"
        resolved = await client.call_tool("resolve_message", {"id": bug, "details": "fixed the handler"})
        assert resolved.structured_content["folder"] == "done"
        rejected = await client.call_tool("reject_message", {"id": wish, "reason": "out of scope"})
        assert rejected.structured_content["folder"] == "cancel"
        finished = await client.call_tool("resolve_message", {"id": idea, "details": "designed"})
        assert finished.structured_content["folder"] == "done"

        sent = await client.call_tool(
            "send_message", {"to": "dev", "type": "DIS", "title": "Hello", "content": "**Hi** dev"}
        )
        assert not sent.is_error
        new_id = sent.structured_content["id"]
        assert sent.structured_content["delivered_to"] == ["dev"]
        assert new_id in text(sent)

        reply = await client.call_tool(
            "send_message", {"to": "dev", "type": "ACK", "content": "done", "reply_to": bug}
        )
        assert not reply.is_error, text(reply)

        waited = await client.call_tool("wait_for_messages", {"timeout": 0.3})
        assert waited.structured_content == {"messages": [], "timed_out": True}

    assert new_id in mailroom.filebox("list", "inbox", "--json", agent="dev")


async def test_failures_are_tool_errors_with_advice(mailroom: Mailroom, mode: str):
    message = mailroom.send_to_qa("BR", "It crashes")
    async with connect(mailroom, mode) as client:
        missing = await client.call_tool("read_message", {"id": "0123abcd"})
        assert missing.is_error
        assert missing.structured_content is None
        assert "no message" in text(missing) and "call list_messages" in text(missing).lower()

        first = await client.call_tool("resolve_message", {"id": message, "details": "fixed"})
        assert not first.is_error
        again = await client.call_tool("resolve_message", {"id": message, "details": "fixed"})
        assert again.is_error
        assert "already handled" in text(again) or "no message" in text(again)

        stranger = await client.call_tool("send_message", {"to": "nobody", "type": "ER", "content": "hi"})
        assert stranger.is_error
        assert "unknown agent" in text(stranger) and "list_agents" in text(stranger)

        too_long = await client.call_tool("wait_for_messages", {"timeout": 10_000})
        assert too_long.is_error and "out of range" in text(too_long)


async def test_malformed_calls_are_protocol_errors(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        with pytest.raises(MCPError):
            await client.call_tool("read_message", {"folder": "inbox"})
        with pytest.raises(MCPError):
            await client.call_tool("list_messages", {"folder": "attic"})
        with pytest.raises(MCPError):
            await client.call_tool("no_such_tool", {})
        # The server is still there.
        assert not (await client.call_tool("list_agents", {})).is_error


async def test_wait_reports_progress_and_returns_new_mail(mailroom: Mailroom, mode: str):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async with connect(mailroom, mode) as client:
        result = None

        async def wait():
            nonlocal result
            result = await client.call_tool("wait_for_messages", {"timeout": 20}, progress_callback=on_progress)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(wait)
            await anyio.sleep(1.5)
            # Other calls are not held up by the waiting one.
            started = time.monotonic()
            assert not (await client.call_tool("list_messages", {})).is_error
            assert time.monotonic() - started < 2
            sent = await anyio.to_thread.run_sync(mailroom.send_to_qa, "ER", "Mail while you wait")
        assert not result.is_error
        assert result.structured_content["timed_out"] is False
        assert [m["id"] for m in result.structured_content["messages"]] == [sent]
        assert progress, "no progress notification while waiting"
        assert all(total == 20 for _, total, _ in progress)


async def test_wait_returns_cleanly_when_cancelled(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        with anyio.move_on_after(1):
            await client.call_tool("wait_for_messages", {"timeout": 60})
        started = time.monotonic()
        assert not (await client.call_tool("list_agents", {})).is_error
        assert time.monotonic() - started < 2


async def test_resources_and_prompt(mailroom: Mailroom, mode: str):
    message = mailroom.send_to_qa("ER", "Export to CSV")
    async with connect(mailroom, mode) as client:
        assert [r.uri for r in (await client.list_resources()).resources] == ["filebox://inbox"]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["filebox://thread/{id}"]
        inbox = (await client.read_resource("filebox://inbox")).contents[0]
        assert message in inbox.text and inbox.mime_type == "text/markdown"
        thread = (await client.read_resource(f"filebox://thread/{message}")).contents[0]
        assert "Export to CSV" in thread.text
        with pytest.raises(MCPError):
            await client.read_resource("filebox://thread/0123abcd")

        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == ["process_inbox"]
        prompt = await client.get_prompt("process_inbox", {"id": message})
        rule = prompt.messages[0].content.text
        for word in ["Bug", "Small ER", "Large ER", "Unreasonable ER", "design", "reject_message", message]:
            assert word in rule


async def test_resource_updated_after_another_process_sends(mailroom: Mailroom, mode: str):
    if mode == "legacy":
        updates = []

        async def on_message(message):
            if getattr(message, "method", None) == "notifications/resources/updated":
                updates.append(message.params.uri)

        async with connect(mailroom, mode, message_handler=on_message) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource("filebox://inbox")
            await anyio.to_thread.run_sync(mailroom.send_to_qa, "BR", "New bug")
            with anyio.fail_after(10):
                while "filebox://inbox" not in updates:
                    await anyio.sleep(0.05)
    else:
        async with connect(mailroom, mode) as client:
            async with client.listen(resource_subscriptions=["filebox://inbox"]) as subscription:
                assert subscription.honored.resource_subscriptions == ["filebox://inbox"]
                await anyio.to_thread.run_sync(mailroom.send_to_qa, "BR", "New bug")
                with anyio.fail_after(10):
                    event = await subscription.__anext__()
                assert event.uri == "filebox://inbox"
