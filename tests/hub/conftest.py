"""The hub suite's fixtures: `hub` and `start_hub` from tests/hubproc.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hubproc import hub_fixtures  # noqa: E402

start_hub, hub = hub_fixtures()
