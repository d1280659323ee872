"""`filebox mcp` over stdio, driven by the official Python SDK (PyPI `mcp`), in both the
2026-07-28 lifecycle (`auto`) and the initialize handshake (`legacy`)."""

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
    "reply_message": "updates",
    "resolve_message": "destructive",
    "reject_message": "destructive",
    "hold_message": "destructive",
    "list_agents": "read_only",
    "wait_for_messages": "updates",
    "search_messages": "read_only",
    "message_status": "read_only",
    "list_threads": "read_only",
    "get_thread": "read_only",
    "fork_thread": "updates",
    "ask_question": "updates",
    "task_finish": "updates",
    "work_report": "updates",
    "get_answer": "updates",
    "list_teams": "read_only",
    "team_inbox": "read_only",
    "read_team_inbox": "updates",
    "send_team_message": "additive",
}


def text(result) -> str:
    return "\n".join(block.text for block in result.content)


# The tools whose text is the whole answer: no output schema, no structured content (the hosts
# hand a model the structure instead of the text whenever there is some).
TEXT_ONLY = {"list_messages", "search_messages", "read_message", "list_threads"}


def short_ids(result) -> list[str]:
    """The short ids a listing's or a search's lines begin with, in order."""
    found = []
    for line in text(result).splitlines():
        words = line.removeprefix("*").split()
        if words and len(words[0]) == 8 and all(c in "0123456789abcdef" for c in words[0]):
            found.append(words[0])
    return found


async def test_each_mode_speaks_its_protocol_version(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        # `auto` found 2026-07-28 through server/discover; `legacy` initialized with the SDK's
        # latest handshake version.
        assert client.protocol_version == {"auto": "2026-07-28", "legacy": "2025-11-25"}[mode]
        assert not (await client.call_tool("list_agents", {})).is_error


async def test_tools_are_listed_with_annotations(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        for name, effect in TOOLS.items():
            hints = tools[name].annotations
            assert hints.read_only_hint is (effect == "read_only"), name
            if effect != "read_only":
                assert hints.destructive_hint is (effect == "destructive"), name
            assert (tools[name].output_schema is None) is (name in TEXT_ONLY), name
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
        assert listed.structured_content is None
        assert short_ids(listed) == [wish[:8], idea[:8], bug[:8]], "newest first"
        assert "Add a dark mode" in text(listed)
        only_er = await client.call_tool("list_messages", {"type": "ER", "limit": 1})
        assert short_ids(only_er) == [wish[:8]]
        oldest = await client.call_tool("list_messages", {"type": "ER", "limit": 1, "newest_first": False})
        assert short_ids(oldest) == [idea[:8]]

        read = await client.call_tool("read_message", {"id": bug[:8]})
        assert not read.is_error
        assert read.structured_content is None
        assert f"**Message ID:** {bug}" in text(read) and "**Sender:** dev" in text(read)
        assert "## Original Request/Content\n\nThe save button does nothing" in text(read)

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

        waited = await client.call_tool("wait_for_messages", {"timeout": 0})
        assert not waited.is_error, text(waited)
        assert waited.structured_content == {"messages": []}

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
        assert text(again).startswith(f'message "{message}" was already handled: it is now in done'), text(again)
        assert "(already_handled)" in text(again)

        stranger = await client.call_tool("send_message", {"to": "nobody", "type": "ER", "content": "hi"})
        assert stranger.is_error
        assert "unknown agent" in text(stranger) and "list_agents" in text(stranger)

        # The schema names the two fork reasons; another is an error the model can correct.
        bad_fork = await client.call_tool(
            "fork_thread", {"from": message, "reason": "boredom", "context": "start over"}
        )
        assert bad_fork.is_error and bad_fork.structured_content is None
        assert "`context-compression` or `direction-change`" in text(bad_fork), text(bad_fork)


async def test_arguments_that_do_not_fit_are_tool_errors_and_unknown_tools_protocol_errors(
    mailroom: Mailroom, mode: str
):
    async with connect(mailroom, mode) as client:
        # Arguments outside the schema are the model's to correct: an isError result naming the field.
        for tool, args, named in [
            ("read_message", {"folder": "inbox"}, "id: missing field `id`"),
            ("list_messages", {"folder": "attic"}, "folder: unknown variant `attic`"),
            ("wait_for_messages", {"timeout": -1}, "timeout: invalid value: integer `-1`"),
            ("fork_thread", {"from": "0123abcd", "reason": "direction-change"}, "context: missing field `context`"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and result.structured_content is None, (tool, text(result))
            assert f"invalid arguments for {tool}: {named}" in text(result), text(result)
            assert "Correct that argument" in text(result)
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
            # The wait is running once it reports progress (about a second in).
            with anyio.fail_after(15):
                while not progress:
                    await anyio.sleep(0.05)
            # Other calls are not held up by the waiting one: answered while it still waits.
            assert not (await client.call_tool("list_messages", {})).is_error
            assert result is None
            sent = await anyio.to_thread.run_sync(mailroom.send_to_qa, "ER", "Mail while you wait")
        assert not result.is_error
        assert [m["id"] for m in result.structured_content["messages"]] == [sent]
        assert "Mail while you wait" in text(result)
        assert progress, "no progress notification while waiting"
        assert all(total == 20 for _, total, _ in progress)


async def test_mail_between_waits_is_returned_by_the_next_wait(mailroom: Mailroom, mode: str):
    before = mailroom.send_to_qa("ER", "Already here")
    async with connect(mailroom, mode) as client:
        first = await client.call_tool("wait_for_messages", {"timeout": 0})
        assert first.structured_content == {"messages": []}  # the first wait takes the inbox as it is
        between = await anyio.to_thread.run_sync(mailroom.send_to_qa, "ER", "Sent while no one waits")
        # Already there, so even a wait that does not wait returns it.
        second = await client.call_tool("wait_for_messages", {"timeout": 0})
        assert [m["id"] for m in second.structured_content["messages"]] == [between]
        assert before not in text(second)


async def test_wait_returns_cleanly_when_cancelled(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        with anyio.move_on_after(1):
            await client.call_tool("wait_for_messages", {})  # no timeout: until mail or cancel
        assert not (await client.call_tool("list_agents", {})).is_error
        # Had the cancelled wait gone on, it would take this message (and move the cursor past it).
        await anyio.sleep(0.5)
        sent = await anyio.to_thread.run_sync(mailroom.send_to_qa, "ER", "After the cancel")
        await anyio.sleep(1)
        again = await client.call_tool("wait_for_messages", {"timeout": 10})
        assert [m["id"] for m in again.structured_content["messages"]] == [sent]


async def test_resources_and_prompt(mailroom: Mailroom, mode: str):
    message = mailroom.send_to_qa("ER", "Export to CSV")
    async with connect(mailroom, mode) as client:
        assert [r.uri for r in (await client.list_resources()).resources] == ["filebox://inbox"]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["filebox://thread/{id}"]
        inbox = (await client.read_resource("filebox://inbox")).contents[0]
        # Each line ends with the file name, which ends with the short id.
        assert f"-{message[:8]}.md)" in inbox.text and inbox.mime_type == "text/markdown"
        thread = (await client.read_resource(f"filebox://thread/{message}")).contents[0]
        assert thread.text.startswith("# Thread: Export to CSV")
        assert message in thread.text and thread.mime_type == "text/markdown"
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


async def test_search_finds_sent_messages_in_any_language(mailroom: Mailroom, mode: str):
    english = mailroom.send_to_qa("BR", "The invoice export drops the last row")
    chinese = mailroom.send_to_qa("ER", "请修复登录页面的错误")
    async with connect(mailroom, mode) as client:
        found = await client.call_tool("search_messages", {"query": "invoice"})
        assert not found.is_error, text(found)
        assert found.structured_content is None
        assert short_ids(found) == [english[:8]]
        assert " qa/inbox\n" in text(found)

        two_characters = await client.call_tool("search_messages", {"query": "登录"})
        assert short_ids(two_characters) == [chinese[:8]]

        filtered = await client.call_tool("search_messages", {"query": "", "type": "ER"})
        assert short_ids(filtered) == [chinese[:8]]
        nothing = await client.call_tool("search_messages", {"query": "zeppelin"})
        assert nothing.structured_content is None and text(nothing) == "No messages match."

        bad_status = await client.call_tool("search_messages", {"query": "x", "status": "lost"})
        assert bad_status.is_error and "pending" in text(bad_status)


async def test_threads_replies_status_and_forks(mailroom: Mailroom, mode: str):
    question = mailroom.send_to_qa("ASK", "Which database should we use?")
    async with connect(mailroom, mode) as client:
        replied = await client.call_tool("reply_message", {"id": question, "content": "SQLite, for now."})
        assert not replied.is_error, text(replied)
        assert replied.structured_content["delivered_to"] == ["dev"]
        # dev answers back with the CLI, as another process would.
        await anyio.to_thread.run_sync(lambda: mailroom.filebox("reply", question, "Why not Postgres?"))

        thread = await client.call_tool("get_thread", {"id": question[:8]})
        assert not thread.is_error, text(thread)
        nodes = thread.structured_content["nodes"]
        assert [(n["id"], n["parent"], n["depth"]) for n in nodes] == [
            (question, None, 0),
            (f"{question}#1", question, 1),
            (f"{question}#2", f"{question}#1", 2),
        ]
        assert [(n["from"], n["to"]) for n in nodes[1:]] == [("qa", "dev"), ("dev", "qa")]
        tree = text(thread)
        assert tree.startswith("# Thread: Which database should we use?")
        assert f"\n  - " in tree and f"\n    - " in tree  # nested by depth
        resource = (await client.read_resource(f"filebox://thread/{question}")).contents[0]
        assert resource.text == tree

        threads = await client.call_tool("list_threads", {})
        assert threads.structured_content is None
        assert f"[thread {thread.structured_content['thread']}]" in text(threads)

        status = await client.call_tool("message_status", {"id": question})
        assert not status.is_error, text(status)
        assert status.structured_content["folder"] == "inbox"
        assert status.structured_content["status"] in {"delivered", "replied", "processing"}

        fork = await client.call_tool(
            "fork_thread",
            {"from": question, "reason": "direction-change", "context": "We chose SQLite; start from there."},
        )
        assert not fork.is_error, text(fork)
        assert fork.structured_content["forked_from"] == question
        assert set(fork.structured_content["obsoleted"]) == {f"{question}#1", f"{question}#2"}
        after = (await client.call_tool("get_thread", {"id": question})).structured_content["nodes"]
        obsolete = {n["id"] for n in after if n["obsolete"]}
        assert obsolete == {f"{question}#1", f"{question}#2"}
        new = [n for n in after if n["id"] == fork.structured_content["id"]]
        assert new and new[0]["fork_reason"] == "direction-change" and new[0]["parent"] == question

        missing = await client.call_tool("get_thread", {"id": "0123abcd"})
        assert missing.is_error and "no message" in text(missing)
