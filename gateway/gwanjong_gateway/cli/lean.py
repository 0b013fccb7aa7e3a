"""Per-call work the gateway process can skip without changing any answer."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

#: optional modules that libraries try to import on every request when they are absent
_PROBED_PER_CALL = ("sniffio",)  # httpcore: `import sniffio` in each request's lock setup


def remember_missing_modules(names: tuple[str, ...] = _PROBED_PER_CALL) -> list[str]:
    """Record absent optional modules as absent, so each failed import is a dict lookup.

    httpcore imports `sniffio` inside every request; when it is not installed (anyio 4 no
    longer needs it), each attempt searches the whole sys.path again: a dozen stat calls per
    HTTP request, about 5% of a warm scout. `None` in sys.modules makes the import fail at
    once with the same ImportError, so the library takes the same branch. Installed modules
    are left alone. Returns the names marked."""
    marked: list[str] = []
    for name in names:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = None  # type: ignore[assignment]
            marked.append(name)
    return marked


def loop_options() -> dict[str, Any]:
    """anyio's backend options: uvloop's event loop when it is installed (not a dependency).

    Measured on a warm scout with the platforms in-process: about 8% less CPU per scout
    (`uv run --with uvloop`, bench/start/warm.py). Without uvloop, the standard asyncio loop."""
    if sys.platform != "win32" and importlib.util.find_spec("uvloop") is not None:
        return {"use_uvloop": True}
    return {}
