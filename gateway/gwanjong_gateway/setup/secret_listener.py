"""The one-page HTTP listener where the person types platform credentials (URL-mode
elicitation): the value goes from the browser to the gateway, never through the MCP
client or the model.

Safety by design: it listens on 127.0.0.1 only (random port, started on first use, on the
gateway's own event loop); each link carries a 256-bit random token that is the only
secret, is tied to one platform, works once and expires; the Host header must be the
loopback address (DNS rebinding) and a POST from any other Origin is refused (CSRF); the
page loads nothing from elsewhere (strict CSP), is never cached and sends no Referer
elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import hmac
import html
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from gwanjong_gateway.setup.dotenv_file import DotenvError, check_value
from gwanjong_gateway.setup.loopback import LoopbackPage, Reply, Request
from gwanjong_gateway.setup.results import SetupSaved

log = logging.getLogger(__name__)

Clock = Callable[[], float]
SaveFn = Callable[[dict[str, str]], Awaitable[SetupSaved]]
NotifyFn = Callable[[], Awaitable[None]]

TTL_S = 600.0


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
    saving: bool = field(default=False)
    #: the signed-in caller it was opened for (None without sign-in): only their own
    #: calls find, cancel or supersede it
    owner: str | None = None


class SecretListener(LoopbackPage):
    """Links by elicitation id, and the listener that serves them (one per gateway)."""

    name = "credential page"
    failed = (
        "<p>Something went wrong and the values may not have been saved. Reload this page to "
        "try again, or run <code>gwanjong setup</code> in a terminal.</p>"
    )

    def __init__(self, clock: Clock = time.monotonic, ttl_s: float = TTL_S) -> None:
        super().__init__()
        self.clock = clock
        self.ttl_s = ttl_s
        self._links: dict[str, SecretLink] = {}

    def page(self, title: str, body: str) -> str:
        return _page(title, body)

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
        await self.serve()
        now = self.clock()
        for key, old in list(self._links.items()):
            if old.platform == platform and old.owner == owner and old.state is LinkState.OPEN:
                old.state = LinkState.CANCELLED
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

    def cancel(self, elicitation_id: str, owner: str | None = None) -> None:
        link = self.find(elicitation_id, owner)
        if link is not None and link.state is LinkState.OPEN:
            link.state = LinkState.CANCELLED

    async def route(self, request: Request, reader: asyncio.StreamReader) -> Reply:
        link = self._link_for(request.target)
        if link is None:
            return Reply(404, _page("Link not valid", _GONE))
        if request.method == "GET":
            return Reply(200, _form(link))
        if request.method != "POST":
            return self.refused(405, "Not allowed", "Only GET and POST.")
        return await self._submit(link, await self.form(request, reader))

    def _link_for(self, target: str) -> SecretLink | None:
        prefix = "/setup/"
        if not target.startswith(prefix):
            return None
        token = target[len(prefix) :]
        now = self.clock()
        for link in self._links.values():
            if hmac.compare_digest(link.token.encode(), token.encode()):
                if link.state is LinkState.OPEN and not link.saving and now < link.expires:
                    return link
                return None
        return None

    async def _submit(self, link: SecretLink, body: str) -> Reply:
        pairs = parse_qsl(body, keep_blank_values=True, max_num_fields=64)
        values: dict[str, str] = {}
        for key, value in pairs:
            if key in link.names:
                if key in values:
                    return Reply(400, _form(link, f"{key} was sent twice."))
                if value.strip(" "):
                    values[key] = value.strip(" ")
        if not values:
            return Reply(400, _form(link, "Nothing was typed; nothing saved."))
        try:
            for key, value in values.items():
                check_value(key, value)
        except DotenvError as exc:
            return Reply(400, _form(link, str(exc)))
        link.saving = True  # a second POST meanwhile finds no link
        try:
            result = await link.on_save(values)
        except (DotenvError, ValueError) as exc:
            return Reply(400, _form(link, str(exc)))
        finally:
            link.saving = False
        link.state, link.result = LinkState.SAVED, result
        log.info("credential page: saved %s for %s", ", ".join(sorted(values)), link.platform)
        if link.notify is not None:
            with contextlib.suppress(Exception):  # the client may be gone; the save stands
                await link.notify()
        names = ", ".join(html.escape(n) for n in sorted(values))
        return Reply(200, _page("Saved", f"<p>Saved {names}; you may close this tab.</p>"))


_GONE = (
    "<p>This link is wrong, already used or expired. Ask the assistant to run setup again "
    "for a new one.</p>"
)


def _form(link: SecretLink, error: str = "") -> str:
    rows = "".join(
        f'<label>{html.escape(n)}<input type="password" name="{html.escape(n)}" '
        'autocomplete="off" spellcheck="false"></label>'
        for n in link.names
    )
    problem = f'<p class="error">{html.escape(error)}</p>' if error else ""
    body = (
        f"<p>Enter the {html.escape(link.platform)} credentials. They are saved to the "
        "gateway's .env (mode 0600) and never shown to the assistant. Leave a field empty "
        f'to keep its current value.</p>{problem}<form method="post">{rows}'
        '<button type="submit">Save</button></form>'
    )
    return _page(f"gwanjong: {link.platform} credentials", body)


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:32em;margin:3em auto}"
        "label{display:block;margin:1em 0}input{display:block;width:100%}"
        ".error{color:#b00}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )
