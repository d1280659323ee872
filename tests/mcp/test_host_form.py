"""`ask_question`'s second answer path through the Python SDK's elicitation callback: in the
2026-07-28 lifecycle (`auto`) the call answers with an `InputRequiredResult` whose form the SDK
fills in and retries with; in a session (`legacy`, 2025-11-25) the server sends
`elicitation/create` while the call waits. Either way the person's answer in the host is the
human's reply in the files, and the tool result."""

import json

import pytest
from mcp import types

from conftest import Mailroom, connect
from test_human_channel import human  # noqa: F401 (fixture)

pytestmark = pytest.mark.anyio


async def test_an_answer_in_the_hosts_form_is_the_humans_reply(human: Mailroom, mode: str):
    shown = []

    async def host(context, params: types.ElicitRequestParams):
        shown.append(params.message)
        # The question is in the files before the form shows: the page lists it too.
        assert len(json.loads(human.filebox("--json", "questions", agent="me"))["questions"]) == 1
        return types.ElicitResult(action="accept", content={"answer": "Postgres"})

    async with connect(human, mode, elicitation_callback=host) as client:
        result = await client.call_tool("ask_question", {"project_directory": "/src/app", "question": "Which database?"})
    assert shown == ["Which database?"]
    assert not result.is_error
    assert result.content[0].text == "Postgres"
    assert result.structured_content["answer"]["from"] == "me"
    assert json.loads(human.filebox("--json", "questions", agent="me"))["questions"] == []
    answered = json.loads(human.filebox("--json", "list", "done", agent="me"))["messages"]
    assert [m["type"] for m in answered] == ["ASK"]


async def test_a_declined_form_leaves_the_page_to_answer(human: Mailroom, mode: str):
    async def host(context, params):
        question = json.loads(human.filebox("--json", "questions", agent="me"))["questions"][0]
        human.filebox("reply", question["id"], "SQLite", agent="me")
        return types.ElicitResult(action="decline")

    async with connect(human, mode, elicitation_callback=host) as client:
        result = await client.call_tool("ask_question", {"project_directory": "/src/app", "question": "Which database?"})
    assert result.content[0].text == "SQLite"
