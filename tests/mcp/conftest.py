"""Fixtures for the Python MCP client tests: a temp FileBox config with agents qa (the server's
agent) and dev, the `filebox` binary under test, and a connected `mcp.Client`."""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]


def filebox_bin() -> str:
    path = Path(os.environ.get("FILEBOX_BIN", REPO / "target/debug/filebox")).resolve()
    if not path.is_file():
        raise RuntimeError(f"no filebox binary at {path}: build it or set FILEBOX_BIN")
    return str(path)


@dataclass
class Mailroom:
    """A temp config: `qa` (whom the server serves) and `dev`, both with mailboxes."""

    root: Path
    config: Path

    def env(self, agent: str) -> dict[str, str]:
        return dict(os.environ, FILEBOX_CONFIG=str(self.config), FILEBOX_AGENT=agent)

    def filebox(self, *args: str, agent: str = "dev") -> str:
        """Run the CLI as `agent`, like another process would; return its stdout."""
        done = subprocess.run(
            [filebox_bin(), *args], env=self.env(agent), capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, f"filebox {args} failed: {done.stderr}"
        return done.stdout.strip()

    def send_to_qa(self, kind: str, content: str) -> str:
        """`dev` sends `qa` a message through the CLI; returns the new Message ID."""
        return self.filebox("send", "qa", kind, content).splitlines()[-1]

    def server(self) -> StdioServerParameters:
        return StdioServerParameters(command=filebox_bin(), args=["mcp"], env=self.env("qa"))


@pytest.fixture
def mailroom(tmp_path: Path) -> Mailroom:
    config = tmp_path / "config.json"
    room = Mailroom(tmp_path, config)
    room.filebox("--config", str(config), "init", "--agent", "qa", "--mailbox", str(tmp_path / "qa"))
    room.filebox("--config", str(config), "agents", "add", "dev", "--mailbox", str(tmp_path / "dev"))
    return room


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    """`auto` negotiates 2026-07-28 (server/discover); `legacy` the initialize handshake."""
    return request.param


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def connect(mailroom: Mailroom, mode: str, **options) -> Client:
    return Client(mailroom.server(), mode=mode, **options)
