"""Hand work to a FileBox agent from any A2A client: `python a2a_client.py http://127.0.0.1:PORT/a2a/dev`.
The message lands in dev's inbox; the task's state follows the file (`pip install a2a-sdk`)."""

import asyncio
import sys
import uuid

from a2a.client import ClientConfig, create_client
from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState


async def main(agent_url: str) -> None:
    client = await create_client(agent_url, ClientConfig(streaming=False))
    request = SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text="Please look at the failing nightly build.")],
        )
    )
    async for event in client.send_message(request):
        task = event.task
        print("task", task.id, TaskState.Name(task.status.state))
    later = await client.get_task(GetTaskRequest(id=task.id))
    print("now", TaskState.Name(later.status.state))
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
