"""The Dockerfile checked statically (no docker engine here): stages, user, paths it
copies, the uv command it runs (dry-run against the lock) and the command it serves."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from gwanjong_gateway.cli.main import parser

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_multi_stage_and_non_root() -> None:
    steps = instructions()
    stages = [rest for word, rest in steps if word == "FROM"]
    assert len(stages) >= 2 and " AS build" in stages[0]
    final = steps[max(i for i, (w, _) in enumerate(steps) if w == "FROM") :]
    users = [rest for word, rest in final if word == "USER"]
    assert users and users[-1] not in {"root", "0"}
    assert any(w == "RUN" and "useradd" in r and users[-1] in r for w, r in final)
    # the runtime stage takes only the built environment, not the sources
    assert [r for w, r in final if w == "COPY"] == ["--from=build /app/.venv /app/.venv"]


def test_copied_paths_exist_and_cover_the_workspace() -> None:
    copied: set[str] = set()
    for word, rest in instructions():
        if word == "COPY" and not rest.startswith("--from"):
            *sources, _dest = rest.split()
            for source in sources:
                assert (ROOT / source).exists(), f"Dockerfile copies {source}, which is missing"
                copied.add(source)
    members = {"shared", "gateway", "sandbox", "servers"}  # [tool.uv.workspace] members
    assert members | {"pyproject.toml", "uv.lock"} <= copied
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert ".venv" in ignored and ".env" in ignored and "**/.env" in ignored


def test_uv_sync_step_resolves_from_the_lock(tmp_path: Path) -> None:
    run = next(r for w, r in instructions() if w == "RUN" and r.startswith("uv sync"))
    argv = shlex.split(run)
    assert "--locked" in argv and "--no-dev" in argv
    uv = shutil.which("uv")
    assert uv
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = str(tmp_path / "venv")
    done = subprocess.run(
        [uv, *argv[1:], "--dry-run"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for server in ("gwanjong-devto", "gwanjong-bluesky", "gwanjong-twitter", "gwanjong-reddit"):
        assert f"+ {server} @ file:" in done.stderr + done.stdout
    assert "+ pytest==" not in done.stderr + done.stdout  # no dev tools in the image


def test_entrypoint_is_the_http_gateway() -> None:
    steps = dict(instructions())
    entry = re.findall(r'"([^"]+)"', steps["ENTRYPOINT"])
    cmd = re.findall(r'"([^"]+)"', steps["CMD"])
    assert entry == ["gwanjong"]
    args = parser().parse_args(cmd)
    assert args.transport == "http" and args.host == "0.0.0.0"
    assert steps["EXPOSE"] == str(args.port)
    assert 'gwanjong = "gwanjong_gateway.cli.main:main"' in (
        ROOT / "gateway/pyproject.toml"
    ).read_text(encoding="utf-8")
