"""A child Python in which some modules cannot be imported, as on an OS without them
(``fcntl`` on Windows) or an install without an extra (``psycopg``): a sitecustomize on
PYTHONPATH puts a meta-path finder first that raises ModuleNotFoundError for them.

With ``importers``, only imports made by code of those packages fail: third-party
libraries pick their Unix or Windows branch by ``sys.platform`` (the MCP SDK's stdio
imports fcntl on Unix only), which a Linux child cannot pretend; our own code must not
reach for these modules at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SITECUSTOMIZE = """\
import sys

_BLOCKED = frozenset({blocked!r})
_IMPORTERS = {importers!r}  # None: every importer


def _importer():
    frame = sys._getframe(2)
    while frame is not None and (
        frame.f_code.co_filename.startswith("<frozen") or "importlib" in frame.f_code.co_filename
    ):
        frame = frame.f_back
    return "" if frame is None else str(frame.f_globals.get("__name__", ""))


class _Unimportable:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] not in _BLOCKED:
            return None
        if _IMPORTERS is None or _importer().startswith(_IMPORTERS):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


for _name in [m for m in sys.modules if m.partition(".")[0] in _BLOCKED]:
    del sys.modules[_name]
sys.meta_path.insert(0, _Unimportable())
"""


def env_without(
    tmp: Path, modules: list[str], importers: tuple[str, ...] | None = None
) -> dict[str, str]:
    """The environment of a child Python that cannot import `modules` (from `importers`)."""
    site = tmp / "blocked-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(
        SITECUSTOMIZE.format(blocked=sorted(modules), importers=importers), encoding="utf-8"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    env.pop("GWANJONG_CONFIG", None)
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
