"""The credential page (docs/use/setup.md): a `LocalPage` behind `web.Guard` on 127.0.0.1.
The values go to the gateway, never through the client or the model. Each link's 256-bit
token is the only secret (and the form's CSRF token), for one platform and caller, once,
with an expiry; values are never logged, put in a URL or returned.
"""

from __future__ import annotations

import contextlib
import enum
import hmac
import logging
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from gwanjong_gateway import web
from gwanjong_gateway.platforms.watched import Watched
from gwanjong_gateway.setup.dotenv_file import DotenvError
from gwanjong_gateway.setup.setup_results import SetupSaved

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

log = logging.getLogger(__name__)

HERE = Path(__file__).parent
HOST = "127.0.0.1"
Clock = Callable[[], float]
SaveFn = Callable[[dict[str, str]], Awaitable[SetupSaved]]
#: tells the client its elicitation (by id) is complete (the handshake era)
NotifyFn = Callable[[str], Awaitable[None]]

TTL_S = 600.0
_GONE = (
    "This link is wrong, already used or expired. Ask the assistant to run setup again for "
    "a new one."
)
_FAILED = (
    "Something went wrong and the values may not have been saved. Reload this page to try "
    "again, or run `gwanjong setup` in a terminal."
)


class LinkState(enum.Enum):
    OPEN = "open"
    SAVED = "saved"
    CANCELLED = "cancelled"


@dataclass
class SecretLink:
    """One person, one platform, one use. `result` is what saving answered (no values)."""

    token: str
    elicitation_id: str
    platform: str
    names: list[str]
    expires: float
    on_save: SaveFn
    notify: NotifyFn | None = None
    state: LinkState = LinkState.OPEN
    result: SetupSaved | None = None
    saving: bool = False
    #: the signed-in caller it was opened for (None without sign-in): only their own
    #: calls find, cancel or supersede it
    owner: str | None = None

    def cancel(self) -> None:
        if self.state is LinkState.OPEN:
            self.state = LinkState.CANCELLED


class LocalPage:
    """A page on 127.0.0.1 at a free port behind `web.Guard`, served from first use: its
    links at ``path`` (`answer`), anything else a wrong link (``gone``), any failure said
    as ``failed`` (only the error's type is logged)."""

    name = "page"
    templates = HERE / "templates"
    template = ""
    #: the status of a request to another Host (see `web.Guard`)
    misdirected = 403
    path = ""
    methods = ("GET", "POST")
    gone = ""
    failed = ""

    def __init__(self) -> None:
        self.port = 0
        self._task: Watched | None = None

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        every = ["GET", "POST", "PUT", "PATCH", "DELETE"]  # any other method: no link here
        return [
            Route(self.path, self._route, methods=list(self.methods)),
            Route("/{path:path}", self._gone, methods=every),
        ]

    async def answer(self, request: Request) -> Response:
        raise NotImplementedError

    async def _route(self, request: Request) -> Response:
        try:
            return await self.answer(request)
        except Exception as exc:  # only the type: the text might quote a value or a link
            log.warning("%s: a request failed (%s)", self.name, type(exc).__name__)
            return self.say(500, "Not sure what happened", self.failed)

    async def _gone(self, _request: Request) -> Response:
        return self.say(404, "Link not valid", self.gone)

    def say(self, status: int, title: str, text: str) -> Response:
        return self.render(self.template, status, title, text=text)

    async def form(self, request: Request, max_fields: int) -> list[tuple[str, str]] | Response:
        """The POSTed form's fields, or the page saying it was malformed."""
        try:
            body = (await request.body()).decode("utf-8", errors="strict")
            return parse_qsl(body, keep_blank_values=True, max_num_fields=max_fields)
        except (ValueError, UnicodeDecodeError):
            return self.say(400, "Bad request", "The request was malformed.")

    def serve(self) -> None:
        """Start listening, once (no await inside: two callers cannot both start it)."""
        if self._task is None:
            sock = socket.create_server((HOST, 0))
            sock.setblocking(False)
            self.port = int(sock.getsockname()[1])
            self._task = Watched(f"the {self.name}")
            self._task.start(web.serve(self.app(), sock))
            log.info("%s listening on %s:%d", self.name, HOST, self.port)

    async def close(self) -> None:
        if self._task is not None:
            await self._task.stop()
            self._task = None

    def app(self) -> Starlette:
        allowed = lambda: web.origins_for(HOST, self.port)  # noqa: E731
        return web.app(self.routes(), allowed, self.misdirected)

    def render(self, template: str, status: int, title: str, **values: Any) -> Response:
        from starlette.responses import HTMLResponse

        page = web.templates(self.templates).get_template(template).render(title=title, **values)
        return HTMLResponse(page, status_code=status)


class SecretListener(LocalPage):
    """Links by elicitation id, and the page that serves them (one per gateway)."""

    name = "credential page"
    template = "credentials.html"
    path = "/setup/{token}"
    gone, failed = _GONE, _FAILED

    def __init__(self, clock: Clock = time.monotonic, ttl_s: float = TTL_S) -> None:
        super().__init__()
        self.clock = clock
        self.ttl_s = ttl_s
        self._links: dict[str, SecretLink] = {}

    async def open(
        self,
        platform: str,
        names: list[str],
        on_save: SaveFn,
        notify: NotifyFn | None = None,
        owner: str | None = None,
    ) -> SecretLink:
        """A fresh link for `platform`; an older open link of the same `owner` for it stops
        working (another team member's stays open: links are keyed by owner)."""
        self.serve()
        now = self.clock()
        for key, old in list(self._links.items()):
            if old.platform == platform and old.owner == owner:
                old.cancel()
            if old.expires + self.ttl_s < now:  # long gone: forget it
                del self._links[key]
        link = SecretLink(
            token=secrets.token_urlsafe(32),
            elicitation_id=secrets.token_hex(16),
            platform=platform,
            names=list(names),
            expires=now + self.ttl_s,
            on_save=on_save,
            notify=notify,
            owner=owner,
        )
        self._links[link.elicitation_id] = link
        return link

    def url(self, link: SecretLink) -> str:
        return f"{self.origin}/setup/{link.token}"

    def find(self, elicitation_id: str, owner: str | None = None) -> SecretLink | None:
        """The link of that id, if it is `owner`'s (a stateless client echoes the id back:
        another caller presenting it finds nothing)."""
        link = self._links.get(elicitation_id)
        return link if link is not None and link.owner == owner else None

    def _form(self, link: SecretLink, status: int = 200, error: str = "") -> Response:
        title = f"gwanjong: {link.platform} credentials"
        return self.render(self.template, status, title, link=link, error=error)

    async def answer(self, request: Request) -> Response:
        link = self._link_for(request.path_params["token"])
        if link is None:
            return await self._gone(request)
        if request.method == "GET":
            return self._form(link)
        pairs = await self.form(request, 64)
        return pairs if not isinstance(pairs, list) else await self._submit(link, pairs)

    def _link_for(self, token: str) -> SecretLink | None:
        now = self.clock()
        for link in self._links.values():
            if hmac.compare_digest(link.token.encode(), token.encode()):
                if link.state is LinkState.OPEN and not link.saving and now < link.expires:
                    return link
                return None
        return None

    async def _submit(self, link: SecretLink, pairs: list[tuple[str, str]]) -> Response:
        values: dict[str, str] = {}
        for key, value in pairs:
            if key in link.names:
                if key in values:
                    return self._form(link, 400, f"{key} was sent twice.")
                if value.strip(" "):
                    values[key] = value.strip(" ")
        if not values:
            return self._form(link, 400, "Nothing was typed; nothing saved.")
        link.saving = True  # a second POST meanwhile finds no link
        try:  # `on_save` checks each value before it writes anything (dotenv_file.save)
            result = await link.on_save(values)
        except (DotenvError, ValueError) as exc:
            return self._form(link, 400, str(exc))
        finally:
            link.saving = False
        link.state, link.result = LinkState.SAVED, result
        log.info("credential page: saved %s for %s", ", ".join(sorted(values)), link.platform)
        if link.notify is not None:
            with contextlib.suppress(Exception):  # the client may be gone; the save stands
                await link.notify(link.elicitation_id)
        names = ", ".join(sorted(values))
        return self.say(200, "Saved", f"Saved {names}; you may close this tab.")
