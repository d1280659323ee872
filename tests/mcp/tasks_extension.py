"""A client side of the tasks extension (`io.modelcontextprotocol/tasks`) for the Python SDK,
which has none of its own but lets an extension claim a result shape: `Tasks` claims the
`resultType: "task"` results of `tools/call` and resolves them by polling `tasks/get` at the
interval the server suggests (the SDK then declares the extension in each request's
capabilities, on the 2026-07-28 protocol)."""

from typing import Any, Literal

import anyio
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"


class CreateTaskResult(Result):
    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskIdParams(RequestParams):
    task_id: str


class GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


ANY = TypeAdapter(dict[str, Any])


class Tasks(ClientExtension):
    """Resolves a task by polling it; remembers each task id it saw."""

    identifier = TASKS

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.created = anyio.Event()

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve)]

    async def resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
        self.seen.append(created.task_id)
        self.created.set()
        while True:
            task = await get_task(ctx.session, created.task_id)
            if task["status"] == "completed":
                return CallToolResult.model_validate(task["result"])
            assert task["status"] == "working", task
            await anyio.sleep((created.poll_interval_ms or 500) / 1000)


async def get_task(session: Any, task_id: str) -> dict:
    """`tasks/get`: the task as the server reports it now."""
    return await session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), ANY)


async def cancel_task(session: Any, task_id: str) -> None:
    """`tasks/cancel`."""
    await session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), ANY)
