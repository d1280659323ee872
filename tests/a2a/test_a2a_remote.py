"""A FileBox agent hands work to a remote A2A agent built with the official `a2a-sdk` server
(`remote_agent.py`): `filebox send` from the CLI with no hub in the way, a real `filebox serve`
hands it over as `SendMessage`, and the remote task's states come back into the sender's
copy: the ask-back as a reply in its inbox, `filebox reply` continuing the task, completion
with the artifact. The agent is added with `filebox agents add --a2a` and its base URL, as
A2A agents publish it: the hub reads its card for the JSON-RPC interface. Also: a remote that
is down when the mail is sent gets it once it is up, and one that refuses (a wrong token)
makes the copy fail with the reason."""

import json
import time

import pytest

from remote_agent import ASK_BACK, RemoteAgent


@pytest.fixture
def remote():
    agent = RemoteAgent().start()
    yield agent
    agent.stop()


def with_remote(hub, url: str, token: str = "secret"):
    """`planner` is the remote agent at its base `url`, added as a user would."""
    hub.filebox("agents", "add", "planner", "--a2a", url, "--token", token)
    return hub


def send(hub, text: str) -> str:
    sent = json.loads(hub.filebox("--json", "--agent", "dev", "send", "planner", "ER", text))
    return sent["id"]


def status(hub, message_id: str) -> dict:
    return json.loads(hub.filebox("--json", "--agent", "dev", "status", message_id))


def eventually(what, condition, seconds: float = 30):
    """The condition's value once it holds (the hub works in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def inbox(hub) -> list[dict]:
    return json.loads(hub.filebox("--json", "--agent", "dev", "list"))["messages"]


def test_a_send_asks_back_is_answered_and_completes(start_hub, remote):
    hub = with_remote(start_hub(), remote.url)
    message_id = send(hub, "plan the release")
    asked = eventually("the ask-back is in dev's inbox", lambda: inbox(hub))
    assert len(asked) == 1
    shown = hub.filebox("--agent", "dev", "read", message_id)
    assert ASK_BACK in shown
    assert status(hub, message_id)["status"] == "replied"
    [first] = remote.received
    assert first.message_id == message_id
    assert first.context_id
    assert [p.text for p in first.parts] == ["plan the release"]

    hub.filebox("--agent", "dev", "reply", message_id, "main")
    done = eventually(
        "the completion is in dev's inbox",
        lambda: "planned on main" in hub.filebox("--agent", "dev", "read", message_id),
    )
    assert done
    follow_up = remote.received[1]
    assert follow_up.task_id, "the reply continues the remote task"
    assert follow_up.context_id == first.context_id
    assert status(hub, message_id)["status"] == "replied"
    assert len(remote.received) == 2


def test_a_remote_down_at_send_time_gets_the_message_once_it_is_up(start_hub, remote):
    remote.stop()
    hub = with_remote(start_hub(), remote.url)
    message_id = send(hub, "plan while you were away")
    time.sleep(1)
    assert status(hub, message_id)["status"] == "pending"
    remote.start()
    eventually("the ask-back is in dev's inbox", lambda: inbox(hub))
    assert [m.message_id for m in remote.received] == [message_id]


def test_a_remote_that_refuses_makes_the_copy_fail_with_the_reason(start_hub, remote):
    hub = with_remote(start_hub(), remote.url, token="wrong")
    message_id = send(hub, "let me in")
    failed = eventually(
        "the copy failed", lambda: status(hub, message_id)["status"] == "failed"
    )
    assert failed
    assert "HTTP 401" in json.dumps(status(hub, message_id))
    assert remote.received == []
