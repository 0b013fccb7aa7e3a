"""Every workspace member ships the MIT license and names it in its metadata."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def members() -> list[Path]:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["uv"][
        "workspace"
    ]["members"]
    return sorted(
        p for pattern in patterns for p in ROOT.glob(pattern) if (p / "pyproject.toml").exists()
    )


def test_each_member_carries_the_license() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    found = members()
    assert len(found) == 9  # shared, gateway, sandbox, six platform servers
    for member in found:
        project = tomllib.loads((member / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        assert project["license"] == "MIT", member
        assert project["license-files"] == ["LICENSE"], member
        assert (member / "LICENSE").read_text(encoding="utf-8") == license_text, member


def test_the_gateway_installs_its_platform_servers() -> None:
    gateway = tomllib.loads((ROOT / "gateway/pyproject.toml").read_text(encoding="utf-8"))
    deps = set(gateway["project"]["dependencies"])
    assert {"gwanjong-devto", "gwanjong-bluesky", "gwanjong-twitter", "gwanjong-reddit"} <= deps
