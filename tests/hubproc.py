"""A `filebox serve` process over a temp config (a human `me`, agents `dev` and `qa`), started
as a user would start it; its base URL is the first line it prints. Shared by the Python suites
(tests/hub, tests/a2a), each of which puts this folder on `sys.path` in its conftest."""

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def filebox_bin() -> str:
    path = Path(os.environ.get("FILEBOX_BIN", REPO / "target/debug/filebox")).resolve()
    if not path.is_file():
        raise RuntimeError(f"no filebox binary at {path}: build it or set FILEBOX_BIN")
    return str(path)


class Hub:
    """`url` is the printed base URL, ending in `/`."""

    def __init__(self, root: Path, configure=None):
        self.root = root
        self.config = root / ".filebox" / "config.json"
        self.env = dict(os.environ, FILEBOX_CONFIG=str(self.config), HOME=str(root))
        self.env.pop("FILEBOX_AGENT", None)
        self.filebox("--agent", "me", "init", "--mailbox", str(root / "mailboxes/me"))
        for agent in ("dev", "qa"):
            self.filebox("agents", "add", agent, "--mailbox", str(root / "mailboxes" / agent))
        config = json.loads(self.config.read_text())
        config["agents"]["me"]["kind"] = "human"
        if configure:
            configure(config)
        self.config.write_text(json.dumps(config))
        self.process = subprocess.Popen(
            [filebox_bin(), "serve", "--listen", "127.0.0.1:0"],
            env=self.env,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://"), self.process.stderr.read()

    def filebox(self, *args: str) -> str:
        done = subprocess.run(
            [filebox_bin(), *args], env=self.env, capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, f"filebox {args} failed: {done.stderr}"
        return done.stdout.strip()

    def files(self, agent: str, folder: str) -> list[Path]:
        return sorted((self.root / "mailboxes" / agent / folder).glob("*.md"))

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


def hub_fixtures(hub_class=Hub):
    """The `start_hub` and `hub` fixtures for a conftest: `start_hub(configure)` starts a hub
    (`configure(config)` may change the config, a dict, first); every hub started is stopped
    after the test and must exit 0."""

    @pytest.fixture
    def start_hub(tmp_path: Path):
        started = []

        def start(configure=None):
            started.append(hub_class(tmp_path, configure))
            return started[-1]

        yield start
        for running in started:
            if running.process.poll() is None:
                assert running.stop() == 0

    @pytest.fixture
    def hub(start_hub):
        return start_hub()

    return start_hub, hub
