"""What each platform emulator provides to the sandbox app."""

from __future__ import annotations

from typing import Protocol

from starlette.responses import Response
from starlette.types import ASGIApp

from gwanjong_sandbox.routing import Endpoint
from gwanjong_sandbox.state import SandboxState


class Emulator(Protocol):
    @property
    def platform(self) -> str:
        """The name faults and ids are addressed by ("devto")."""
        ...

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Path prefixes routed here ("/api/" for Forem); matched when no host matches."""
        ...

    @property
    def hosts(self) -> tuple[str, ...]:
        """Host headers routed here whatever the path (twikit keeps x.com as Host)."""
        ...

    # Optional: ``fault_scope: tuple[str, ...]`` names the fault targets this emulator obeys
    # (default: its own platform only); ``demo_env(base_url) -> dict[str, str]`` gives the
    # env vars that point this platform's server at the sandbox (used by `gwanjong demo`).

    def app(self) -> ASGIApp:
        """The ASGI app serving this platform's routes, with full paths."""
        ...

    def route_table(self) -> tuple[Endpoint, ...]:
        """Every route served: (method, path) -> handler, in match order."""
        ...

    def resolve(self, method: str, path: str) -> Endpoint | None:
        """The route a request reaches, matched as app() matches it."""
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
    from gwanjong_sandbox.bluesky import BlueskyEmulator
    from gwanjong_sandbox.devto import DevtoEmulator
    from gwanjong_sandbox.hackernews import HackernewsEmulator
    from gwanjong_sandbox.mastodon import MastodonEmulator
    from gwanjong_sandbox.reddit import RedditEmulator
    from gwanjong_sandbox.twikit import TwikitEmulator
    from gwanjong_sandbox.twitter import TwitterEmulator

    return [
        DevtoEmulator(state),
        BlueskyEmulator(state),
        RedditEmulator(state),
        TwitterEmulator(state),
        TwikitEmulator(state),
        HackernewsEmulator(state),
        MastodonEmulator(state),
    ]
