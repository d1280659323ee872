"""The human channel through the Python SDK: `ask_question` blocks until the human (the
config's `kind: human` mailbox `me`) answers; the answer comes back as TextContent plus
ImageContent with the attached file's bytes; a timeout leaves the question open for
`get_answer`; `work_report` is `task_finish`; a cancelled call withdraws the question."""

import base64
import json
import subprocess
import time

import anyio
import pytest

from conftest import Mailroom, connect, filebox_bin

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def human(mailroom: Mailroom) -> Mailroom:
    """Add the human mailbox `me` (`"kind": "human"`) to the config."""
    config = json.loads(mailroom.config.read_text())
    config["agents"]["me"] = {"mailbox_path": str(mailroom.root / "me"), "kind": "human"}
    mailroom.config.write_text(json.dumps(config))
    # The first wait takes the inbox as it is: start the human's wait cursor on the empty inbox,
    # so the next wait returns the question whenever it comes.
    done = subprocess.run(
        [filebox_bin(), "wait", "--timeout", "0"], env=mailroom.env("me"), capture_output=True, timeout=30
    )
    assert done.returncode == 3, done.stderr
    return mailroom


def next_question(room: Mailroom) -> dict:
    """Block (filebox wait: file-system notification) until a question reaches `me`."""
    room.filebox("wait", "--timeout", "30", agent="me")
    questions = json.loads(room.filebox("--json", "questions", agent="me"))["questions"]
    assert len(questions) == 1, questions
    return questions[0]


def answer(room: Mailroom, question_id: str, text: str, *files) -> None:
    room.filebox("reply", question_id, text, *[a for f in files for a in ("--attach", str(f))], agent="me")


async def test_ask_question_returns_the_answer_text_and_image(human: Mailroom, mode: str):
    shot = human.root / "shot.png"
    shot.write_bytes(PNG)
    async with connect(human, mode) as client:
        result = None

        async def ask():
            nonlocal result
            result = await client.call_tool(
                "ask_question",
                {"project_directory": "/src/app", "question": "Which database?", "options": ["SQLite", "Postgres"]},
            )

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask)
            question = await anyio.to_thread.run_sync(next_question, human)
            assert question["project_directory"] == "/src/app"
            assert question["options"] == ["SQLite", "Postgres"]
            assert question["client"], "the MCP client's name from initialize"
            assert question["type"] == "ASK" and question["from"] == "qa"
            await anyio.to_thread.run_sync(answer, human, question["id"], "SQLite, see the sketch", shot)
        assert not result.is_error
        kinds = [block.type for block in result.content]
        assert kinds == ["text", "image"], kinds
        assert result.content[0].text.startswith("SQLite, see the sketch")
        assert result.content[1].mime_type == "image/png"
        assert base64.b64decode(result.content[1].data) == PNG
        assert result.structured_content["status"] == "answered"
        # The answer was taken: not new mail, and a second answer is refused.
        assert json.loads(human.filebox("--json", "list", agent="qa"))["messages"] == []
        with pytest.raises(AssertionError, match="answered once"):
            answer(human, question["id"], "Postgres")


async def test_a_timeout_leaves_the_question_open_for_get_answer(human: Mailroom, mode: str):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    async with connect(human, mode) as client:
        result = await client.call_tool(
            "task_finish", {"project_directory": "/src/app", "summary": "Added CSV export.", "timeout": 2},
            progress_callback=on_progress,
        )
        assert not result.is_error
        assert result.structured_content["status"] == "open"
        qid = result.structured_content["id"]
        assert "No objection within 2 s" in result.content[0].text and qid in result.content[0].text
        assert progress and all(total == 2 for _, total in progress)

        still = await client.call_tool("get_answer", {"id": qid})
        assert still.structured_content["status"] == "open"

        await anyio.to_thread.run_sync(answer, human, qid, "Thanks, now the docs.")
        # The late answer is in the agent's inbox...
        inbox = json.loads(human.filebox("--json", "list", agent="qa"))["messages"]
        assert [m["id"] for m in inbox] == [qid]
        # ...and get_answer returns it at once.
        got = await client.call_tool("get_answer", {"id": qid})
        assert got.structured_content["status"] == "answered"
        assert got.content[0].text == "Thanks, now the docs."


async def test_work_report_is_task_finish_by_its_other_name(human: Mailroom, mode: str):
    async with connect(human, mode) as client:
        async with anyio.create_task_group() as tasks:
            results = []

            async def report():
                results.append(
                    await client.call_tool(
                        "work_report", {"project_directory": "/src/app", "summary": "Added CSV export.", "timeout": 60}
                    )
                )

            tasks.start_soon(report)
            report_message = await anyio.to_thread.run_sync(next_question, human)
            assert report_message["type"] == "RPT" and report_message["project_directory"] == "/src/app"
            await anyio.to_thread.run_sync(answer, human, report_message["id"], "Now the docs.")
        [result] = results
        assert not result.is_error
        assert result.structured_content["status"] == "answered"
        assert result.structured_content["type"] == "RPT"
        assert result.content[0].text == "Now the docs."


async def test_a_cancelled_question_is_withdrawn(human: Mailroom, mode: str):
    async with connect(human, mode) as client:
        async with anyio.create_task_group() as tasks:
            scope = anyio.CancelScope()

            async def ask():
                with scope:
                    await client.call_tool("ask_question", {"project_directory": "/p", "question": "Proceed?"})

            tasks.start_soon(ask)
            await anyio.to_thread.run_sync(next_question, human)
            scope.cancel()
        # The server withdraws it when the cancellation reaches it: the human's copy moves to
        # cancel/ (the move's last step publishes it there, so look for that, not for its absence
        # from the inbox, which comes first).
        cancel = human.root / "me" / "cancel"
        deadline = time.monotonic() + 10
        while not list(cancel.glob("*-ASK-*.md")):
            assert time.monotonic() < deadline, "the cancelled question was not withdrawn"
            await anyio.sleep(0.1)
        assert not json.loads(human.filebox("--json", "questions", agent="me"))["questions"]
        withdrawn = list(cancel.glob("*-ASK-*.md"))
        assert len(withdrawn) == 1
        assert "Withdrawn" in withdrawn[0].read_text()
