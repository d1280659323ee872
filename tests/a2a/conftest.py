"""The A2A suite's fixtures: `hub` and `start_hub` from tests/hubproc.py, with the hub's URL
without its trailing slash (the SDKs join paths to it)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hubproc  # noqa: E402
from hubproc import REPO, hub_fixtures  # noqa: E402,F401


class Hub(hubproc.Hub):
    def __init__(self, root: Path, configure=None):
        super().__init__(root, configure)
        self.url = self.url.rstrip("/")


start_hub, hub = hub_fixtures(Hub)
