"""The official A2A Python SDK (`a2a-sdk`) against a real `filebox serve`: the card resolver,
send, get, list, stream, cancel, push to a local receiver, the error codes, and the 0.3 method names (the SDK's own
0.3 transport, chosen by a card that offers only 0.3)."""

import asyncio
import json
import queue
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import (
    AgentInterface,
    CancelTaskRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError

from conftest import REPO


def message(text: str, task_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
            task_id=task_id,
        )
    )


async def first_task(client, request):
    async for event in client.send_message(request):
        assert event.HasField("task"), event
        return event.task
    raise AssertionError("no answer")


def test_the_card_resolver_finds_the_hub_and_each_agent(hub):
    async def run():
        async with httpx.AsyncClient() as http:
            hub_card = await A2ACardResolver(http, hub.url).get_agent_card()
            assert [s.id for s in hub_card.skills] == ["dev", "me", "qa"]
            dev = await A2ACardResolver(http, f"{hub.url}/a2a/dev").get_agent_card()
            assert dev.name == "dev"
            assert dev.supported_interfaces[0].url == f"{hub.url}/a2a/dev"
            assert dev.capabilities.streaming

    asyncio.run(run())


def test_send_get_list_and_cancel_through_the_sdk(hub):
    async def run():
        client = await create_client(f"{hub.url}/a2a/dev", ClientConfig(streaming=False))
        task = await first_task(client, message("Please review the release notes."))
        assert task.status.state == TaskState.TASK_STATE_SUBMITTED
        assert len(hub.files("dev", "inbox")) == 1
        hub.filebox("--agent", "dev", "resolved", task.id, "Reviewed: ship it.")
        done = await client.get_task(GetTaskRequest(id=task.id))
        assert done.status.state == TaskState.TASK_STATE_COMPLETED
        assert done.artifacts[0].parts[0].text == "Reviewed: ship it."

        other = await first_task(client, message("And the changelog."))
        canceled = await client.cancel_task(CancelTaskRequest(id=other.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(CancelTaskRequest(id=other.id))
        with pytest.raises(TaskNotFoundError):
            await client.get_task(GetTaskRequest(id="no-such-task"))

        listed = await client.list_tasks(ListTasksRequest())
        assert sorted(t.id for t in listed.tasks) == sorted([task.id, other.id])
        await client.close()

    asyncio.run(run())


def test_a_stream_follows_the_agent_until_it_asks_back_and_then_completes(hub):
    async def run():
        client = await create_client(f"{hub.url}/a2a/dev", ClientConfig(streaming=True))
        events = client.send_message(message("Deploy the site."))
        opening = await anext(events)
        task_id = opening.task.id
        assert opening.task.status.state == TaskState.TASK_STATE_SUBMITTED
        await asyncio.to_thread(hub.filebox, "--agent", "dev", "onhold", task_id, "deploying")
        working = await anext(events)
        assert working.status_update.status.state == TaskState.TASK_STATE_WORKING
        await asyncio.to_thread(hub.filebox, "--agent", "dev", "reply", task_id, "Which region?")
        asked = await anext(events)
        assert asked.status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert asked.status_update.status.message.parts[0].text == "Which region?"
        with pytest.raises(StopAsyncIteration):
            await anext(events)

        answer = client.send_message(message("eu-west", task_id=task_id))
        resumed = await anext(answer)
        assert resumed.task.status.state == TaskState.TASK_STATE_SUBMITTED
        await asyncio.to_thread(hub.filebox, "--agent", "dev", "resolved", task_id, "Deployed to eu-west.")
        rest = [event async for event in answer]
        assert rest[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        assert any(e.artifact_update.artifact.parts[0].text == "Deployed to eu-west." for e in rest if e.HasField("artifact_update"))
        await client.close()

    asyncio.run(run())


def test_the_0_3_method_names_through_the_sdks_0_3_transport(hub):
    async def run():
        async with httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, f"{hub.url}/a2a/qa").get_agent_card()
        legacy = [i for i in card.supported_interfaces if i.protocol_version == "0.3"]
        assert legacy, card
        del card.supported_interfaces[:]
        card.supported_interfaces.append(AgentInterface(url=legacy[0].url, protocol_binding="JSONRPC", protocol_version="0.3"))
        client = await create_client(card, ClientConfig(streaming=False))
        task = await first_task(client, message("hello over 0.3"))
        assert task.status.state == TaskState.TASK_STATE_SUBMITTED
        got = await client.get_task(GetTaskRequest(id=task.id))
        assert got.id == task.id
        canceled = await client.cancel_task(CancelTaskRequest(id=task.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        await client.close()

    asyncio.run(run())


def test_the_readme_example_runs_as_written(hub):
    example = REPO / "docs" / "examples" / "a2a_client.py"
    done = subprocess.run(
        [sys.executable, str(example), f"{hub.url}/a2a/dev"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "TASK_STATE_SUBMITTED" in done.stdout, done.stdout
    assert len(hub.files("dev", "inbox")) == 1


class Receiver:
    """A local HTTP server that keeps each push notification's headers and JSON body."""

    def __init__(self):
        received = self.received = queue.Queue()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.put(({k.lower(): v for k, v in self.headers.items()}, json.loads(body)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next(self):
        return self.received.get(timeout=20)


def test_push_notifications_reach_a_local_receiver_the_allow_list_names(start_hub):
    receiver = Receiver()
    hub = start_hub(lambda config: config.setdefault("hub", {}).update(callback_allow=[receiver.url]))

    async def run():
        client = await create_client(f"{hub.url}/a2a/dev", ClientConfig(streaming=False))
        task = await first_task(client, message("Ping me when it is done."))
        config = await client.create_task_push_notification_config(
            TaskPushNotificationConfig(task_id=task.id, url=f"{receiver.url}hook", token="tok-1")
        )
        assert config.task_id == task.id and config.id
        listed = await client.list_task_push_notification_configs(
            ListTaskPushNotificationConfigsRequest(task_id=task.id)
        )
        assert [c.id for c in listed.configs] == [config.id]
        headers, first = await asyncio.to_thread(receiver.next)
        assert headers["x-a2a-notification-token"] == "tok-1"
        assert first["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
        await asyncio.to_thread(hub.filebox, "--agent", "dev", "resolved", task.id, "Done.")
        _, done = await asyncio.to_thread(receiver.next)
        assert done["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        await client.close()

    asyncio.run(run())
