"""The Claude Code team tools (`list_teams`, `team_inbox`, `read_team_inbox`,
`send_team_message`) and `wait_for_messages` with `format: "xml"`, called through the official
Python SDK over stdio. The team folder is a copy of tests/bridges/fixtures/claude (inboxes in
Claude Code 2.1.88's exact format) or of tests/bridges/fixtures/claude-2.1.331 (the current
shape: a session team, `msg_id`s, delivered messages removed), found the way Claude Code finds
it: `CLAUDE_CONFIG_DIR`."""

import json
import re
import shutil
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import REPO, Mailroom, connect, filebox_bin

pytestmark = pytest.mark.anyio

FIXTURE = REPO / "tests/bridges/fixtures/claude"
TEAM = "Boom_UI"
CURRENT = REPO / "tests/bridges/fixtures/claude-2.1.331"
SESSION_ID = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
SESSION_TEAM = "session-1a2b3c4d"


def text(result) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.fixture
def claude_dir(tmp_path: Path) -> Path:
    target = tmp_path / "claude"
    shutil.copytree(FIXTURE, target)
    return target


def inbox(claude_dir: Path, member: str) -> list[dict]:
    return json.loads((claude_dir / "teams" / TEAM / "inboxes" / f"{member}.json").read_text())


def team_client(mailroom: Mailroom, claude_dir: Path, mode: str, **env: str) -> Client:
    env = dict(mailroom.env("qa"), CLAUDE_CONFIG_DIR=str(claude_dir), **env)
    env.pop("CLAUDE_CODE_TEAM_NAME", None)
    return Client(StdioServerParameters(command=filebox_bin(), args=["mcp"], env=env), mode=mode)


async def test_teams_are_listed_and_an_inbox_is_shown_without_marking(
    mailroom: Mailroom, claude_dir: Path, mode: str
):
    before = (claude_dir / "teams" / TEAM / "inboxes" / "team-lead.json").read_bytes()
    unread = sum(1 for m in inbox(claude_dir, "team-lead") if not m["read"])
    async with team_client(mailroom, claude_dir, mode) as client:
        listed = await client.call_tool("list_teams", {})
        assert not listed.is_error, text(listed)
        [team] = listed.structured_content["teams"]
        assert team["name"] == TEAM
        members = {m["name"]: m for m in team["members"]}
        assert set(members) == {"team-lead", "researcher", "tester"}
        assert members["team-lead"]["unread"] == unread
        assert f"team-lead ({len(inbox(claude_dir, 'team-lead'))} messages, {unread} unread)" in text(listed)

        shown = await client.call_tool("team_inbox", {"team": TEAM, "member": "team-lead", "unread": True})
        assert not shown.is_error, text(shown)
        messages = shown.structured_content["messages"]
        assert len(messages) == unread and not any(m["read"] for m in messages)
        assert text(shown).startswith("* 2026-04-01T10:31:00.000Z researcher")
    # Shown, not marked: the file is byte for byte what it was.
    assert (claude_dir / "teams" / TEAM / "inboxes" / "team-lead.json").read_bytes() == before


async def test_a_message_sent_to_a_member_is_read_once_and_marked_read(
    mailroom: Mailroom, claude_dir: Path, mode: str
):
    already = len(inbox(claude_dir, "tester"))
    async with team_client(mailroom, claude_dir, mode) as client:
        sent = await client.call_tool(
            "send_team_message",
            {"team": TEAM, "to": "tester", "text": "Please rerun npm test", "summary": "rerun the tests"},
        )
        assert not sent.is_error, text(sent)
        assert sent.structured_content["to"] == ["tester"]
        # From the server's own FileBox agent: FileBox claims no one else's name.
        assert sent.structured_content["from"] == "qa"
        written = inbox(claude_dir, "tester")
        assert len(written) == already + 1
        last = written[-1]
        assert {k: last[k] for k in ("from", "text", "read", "summary", "type", "msgV")} == {
            "type": "message",
            "msgV": 1,
            "from": "qa",
            "text": "Please rerun npm test",
            "read": False,
            "summary": "rerun the tests",
        }
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", last["timestamp"]), last

        unread = [m for m in written if not m["read"]]
        read = await client.call_tool("read_team_inbox", {"team": TEAM, "member": "tester"})
        assert not read.is_error, text(read)
        assert [m["text"] for m in read.structured_content["messages"]] == [m["text"] for m in unread]
        assert "Please rerun npm test" in text(read)
        assert all(m["read"] for m in inbox(claude_dir, "tester"))

        again = await client.call_tool("read_team_inbox", {"team": TEAM, "member": "tester"})
        assert again.structured_content["messages"] == []
        assert text(again) == f"No unread messages for tester in team {TEAM}."

        missing = await client.call_tool("team_inbox", {"team": "no-such-team", "member": "tester"})
        assert missing.is_error and missing.structured_content is None
        assert "no-such-team" in text(missing), text(missing)


async def test_the_current_shape_the_session_team_by_default_and_reads_pruned(
    mailroom: Mailroom, tmp_path: Path, mode: str
):
    claude_dir = tmp_path / "claude"
    shutil.copytree(CURRENT, claude_dir)
    path = claude_dir / "teams" / SESSION_TEAM / "inboxes" / "tester.json"
    async with team_client(mailroom, claude_dir, mode, CLAUDE_CODE_SESSION_ID=SESSION_ID) as client:
        listed = await client.call_tool("list_teams", {})
        [team] = listed.structured_content["teams"]
        assert team["name"] == SESSION_TEAM and team["session"] is True
        # No team named: the session's, as Claude Code picks it.
        sent = await client.call_tool("send_team_message", {"to": "tester", "text": "Auth tests next"})
        assert not sent.is_error, text(sent)
        assert sent.structured_content["team"] == SESSION_TEAM
        last = json.loads(path.read_text())[-1]
        assert last["from"] == "qa" and last["type"] == "message" and last["msgV"] == 1
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", last["msg_id"])
        read = await client.call_tool("read_team_inbox", {"member": "tester"})
        assert not read.is_error, text(read)
        assert read.structured_content["marked_read"] == 3
        # Delivered messages are removed, as current Claude Code does.
        assert json.loads(path.read_text()) == []


async def test_a_wait_with_format_xml_returns_teammate_message_blocks(mailroom: Mailroom, mode: str):
    async with connect(mailroom, mode) as client:
        first = await client.call_tool("wait_for_messages", {"timeout": 0, "format": "xml"})
        # The first wait skips what is there: no messages, no blocks.
        assert first.structured_content == {"messages": [], "xml": ""}
        sent = await anyio.to_thread.run_sync(
            mailroom.send_to_qa, "BR", '# Save "fails" <sometimes>\n\nThe save button does nothing.'
        )
        waited = await client.call_tool("wait_for_messages", {"timeout": 0, "format": "xml"})
        assert not waited.is_error, text(waited)
        assert [m["id"] for m in waited.structured_content["messages"]] == [sent]
        xml = waited.structured_content["xml"]
        # The attribute value is escaped, the body kept as is.
        assert xml.startswith(
            '<teammate-message teammate_id="dev" summary="Save &quot;fails&quot; &lt;sometimes&gt;">\n'
        ), xml
        assert "The save button does nothing." in xml and xml.endswith("</teammate-message>")
        # The text a model reads: the listing line, then the blocks.
        assert text(waited).endswith(xml)
        # Rendered whole means read: no longer unread.
        unread = await client.call_tool("list_messages", {"unread": True})
        assert text(unread) == "No messages.", text(unread)

        plain = await anyio.to_thread.run_sync(mailroom.send_to_qa, "ER", "No XML this time")
        lines = await client.call_tool("wait_for_messages", {"timeout": 0})
        assert [m["id"] for m in lines.structured_content["messages"]] == [plain]
        assert "xml" not in lines.structured_content and "<teammate-message" not in text(lines)

        bad = await client.call_tool("wait_for_messages", {"timeout": 0, "format": "html"})
        assert bad.is_error and "unknown variant `html`" in text(bad), text(bad)
