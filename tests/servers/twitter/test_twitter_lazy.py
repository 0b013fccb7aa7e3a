"""twikit (and js2py under it) costs about a CPU-second and 33 MiB: imported only when the
web reader is configured. Checked in fresh interpreters."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CODE = """
import json, sys
from gwanjong_twitter.server import hosted
hosted(json.loads(sys.argv[1]))
print('twikit' in sys.modules)
"""


def loaded_twikit(env: dict[str, str]) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", CODE, json.dumps(env)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1] == "True"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TWITTER_BEARER_TOKEN": "t"}, False),
        ({"TWITTER_BEARER_TOKEN": "t", "TWITTER_COOKIES_FILE": "/nonexistent.json"}, True),
    ],
)
@pytest.mark.stdio  # spawns a process
def test_twikit_only_with_the_web_reader(env: dict[str, str], expected: bool) -> None:
    assert loaded_twikit(env) is expected
