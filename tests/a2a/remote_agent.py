"""A remote A2A agent built with the official `a2a-sdk` server (`DefaultRequestHandler`, an
`AgentExecutor`, the SDK's JSON-RPC and card routes on Starlette, served by uvicorn on
127.0.0.1): it asks back once ("Which branch?"), then completes with an artifact naming what it
was told. Its card is at its base URL's `/.well-known/agent-card.json` and names its JSON-RPC
interface at `/a2a/jsonrpc` (so a client that posts to the base URL is not answered). It takes
only `Authorization: Bearer <token>` there and keeps every message it was handed, so a test can
say what arrived and how often."""

import socket
import threading
import time

import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import JSONResponse

ASK_BACK = "Which branch?"
RPC_PATH = "/a2a/jsonrpc"


class Planner(AgentExecutor):
    def __init__(self, received: list):
        self.received = received
        self.asked: set[str] = set()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.received.append(context.message)
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        said = context.get_user_input()
        if task.id not in self.asked:
            self.asked.add(task.id)
            await updater.requires_input(updater.new_agent_message([new_text_part(ASK_BACK)]))
            return
        await updater.add_artifact([new_text_part(f"planned on {said}")], name="plan")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


class RemoteAgent:
    """The agent on a port of its own; `stop()` and `start()` again keep the port."""

    def __init__(self, token: str = "secret"):
        self.token = token
        self.received: list = []
        self.port = 0
        self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def app(self) -> Starlette:
        card = AgentCard(
            name="planner",
            description="plans releases, asking which branch first",
            version="1.0.0",
            supported_interfaces=[
                AgentInterface(
                    url=self.url.rstrip("/") + RPC_PATH,
                    protocol_binding="JSONRPC",
                    protocol_version="1.0",
                )
            ],
            capabilities=AgentCapabilities(streaming=False),
            default_input_modes=["text/plain"],
            default_output_modes=["text/plain"],
            skills=[AgentSkill(id="plan", name="plan", description="plans a release", tags=["plan"])],
        )
        handler = DefaultRequestHandler(
            agent_executor=Planner(self.received), task_store=InMemoryTaskStore(), agent_card=card
        )
        token = self.token

        async def bearer(request, call_next):
            if request.url.path == RPC_PATH and request.headers.get("authorization") != f"Bearer {token}":
                return JSONResponse({"error": "a bearer token is required"}, status_code=401)
            return await call_next(request)

        return Starlette(
            routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, RPC_PATH),
            middleware=[Middleware(BaseHTTPMiddleware, dispatch=bearer)],
        )

    def start(self) -> "RemoteAgent":
        # The port is bound first: the card names it.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app(), log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the remote agent did not start"
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
