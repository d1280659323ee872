"""Long waits as tasks (`io.modelcontextprotocol/tasks`) through the Python SDK's own extension
mechanism (`tasks_extension.py`). `ask_question` becomes a task at once; the human's
answer completes it, also when the polling client is another process than the asking one; a
`tasks/cancel` withdraws the question."""

import json

import anyio
import pytest
from mcp import Client

from conftest import Mailroom
from tasks_extension import Tasks, cancel_task, get_task
from test_human_channel import answer, human, next_question  # noqa: F401 (fixture)

pytestmark = pytest.mark.anyio


async def test_a_question_is_a_task_the_answer_completes(human: Mailroom):
    tasks = Tasks()
    async with Client(human.server(), mode="2026-07-28", extensions=[tasks]) as client:
        result = None

        async def ask():
            nonlocal result
            result = await client.call_tool("ask_question", {"project_directory": "/src/app", "question": "Ship it?"})

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            question = await anyio.to_thread.run_sync(next_question, human)
            await tasks.created.wait()
            await anyio.to_thread.run_sync(answer, human, question["id"], "Yes, ship it")
        assert tasks.seen, "the call became a task"
        assert not result.is_error
        assert result.content[0].text == "Yes, ship it"
        assert result.structured_content["status"] == "answered"

    # Another process (a restarted client and server) polls the same task: the file answers.
    async with Client(human.server(), mode="2026-07-28", extensions=[Tasks()]) as again:
        task = await get_task(again.session, tasks.seen[0])
        assert task["status"] == "completed"
        assert task["result"]["structuredContent"]["answer"]["text"] == "Yes, ship it"


async def test_cancelling_the_task_withdraws_the_question(human: Mailroom):
    tasks = Tasks()
    async with Client(human.server(), mode="2026-07-28", extensions=[tasks]) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "task_finish", {"project_directory": "/src/app", "summary": "Done."})
            await tasks.created.wait()
            task_id = tasks.seen[0]
            await cancel_task(client.session, task_id)
            task = await get_task(client.session, task_id)
            assert task["status"] == "cancelled"
            group.cancel_scope.cancel()
    assert json.loads(human.filebox("--json", "questions", agent="me"))["questions"] == []
    withdrawn = json.loads(human.filebox("--json", "list", "cancel", agent="me"))["messages"]
    assert [m["type"] for m in withdrawn] == ["RPT"]
