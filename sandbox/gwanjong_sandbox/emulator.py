"""What each platform emulator provides to the sandbox app."""

from __future__ import annotations

from typing import Protocol

from starlette.responses import Response
from starlette.types import ASGIApp

from gwanjong_sandbox.state import SandboxState


class Emulator(Protocol):
    platform: str
    #: path prefixes routed here ("/api/" for Forem); matched when no host matches
    prefixes: tuple[str, ...]
    #: Host headers routed here whatever the path (twikit keeps x.com as Host)
    hosts: tuple[str, ...]

    # Optional: ``fault_scope: tuple[str, ...]`` names the fault targets this emulator obeys
    # (default: its own platform only); ``demo_env(base_url) -> dict[str, str]`` gives the
    # env vars that point this platform's server at the sandbox (used by `gwanjong demo`).

    def app(self) -> ASGIApp:
        """The ASGI app serving this platform's routes, with full paths."""
        ...

    def reset(self) -> None:
        """Back to the seeded corpus: forget writes, likes, sessions."""
        ...

    def ids(self) -> dict[str, str]:
        """Logical corpus key -> this platform's post id (what get_post takes)."""
        ...

    def error_response(self, status: int, retry_after: int | None) -> Response:
        """An error in this platform's own format and headers (for injected faults)."""
        ...


def make_emulators(state: SandboxState) -> list[Emulator]:
    """Every emulator the sandbox serves. A new platform adds one line here."""
    from gwanjong_sandbox.devto import DevtoEmulator

    emulators: list[Emulator] = [DevtoEmulator(state)]
    for module, cls in (
        ("gwanjong_sandbox.bluesky", "BlueskyEmulator"),
        ("gwanjong_sandbox.reddit", "RedditEmulator"),
        ("gwanjong_sandbox.twitter", "TwitterEmulator"),
        ("gwanjong_sandbox.twikit", "TwikitEmulator"),
    ):
        try:
            mod = __import__(module, fromlist=[cls])
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue  # that platform's emulator has not been written yet
        emulators.append(getattr(mod, cls)(state))
    return emulators
