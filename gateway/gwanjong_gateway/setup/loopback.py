"""A tiny HTTP listener on 127.0.0.1 for the one-approval page (review/page.py): a person's
browser talks to the gateway without the MCP client or the model in between. (The
credential page is a Starlette app behind `web.Guard`, like the console; this one is to
follow, issue 35.)

What every such page needs, in one place: a random port, started on first use on the
gateway's event loop; the request head read within a deadline and bounded; the Host header
must be this very address (DNS rebinding); a POST's Origin must be this page's own (CSRF)
and its body a bounded url-encoded form; every answer never cached, never framed, loading
nothing from elsewhere (strict CSP), sending no Referer elsewhere. A page says what to do
with a request (`route`) and how its pages look (`page`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024
READ_TIMEOUT_S = 30.0
CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"


@dataclass(frozen=True)
class Reply:
    status: int
    body: str


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    headers: dict[str, str]  # names in lower case


class Refusal(Exception):
    """A request refused before the page looked at it (the reply says why)."""

    def __init__(self, status: int, title: str, text: str) -> None:
        super().__init__(title)
        self.status, self.title, self.text = status, title, text


class LoopbackPage:
    """One listener and its pages. Subclasses give `route` and `page`; `name` is how the
    log calls them."""

    name = "page"
    #: said when handling a request failed unexpectedly (what may have happened)
    failed = "<p>Something went wrong.</p>"

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.Server | None = None
        self._lock = asyncio.Lock()

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    def page(self, title: str, body: str) -> str:
        raise NotImplementedError

    async def route(self, request: Request, reader: asyncio.StreamReader) -> Reply:
        """The answer to one request whose head passed the checks (Host included)."""
        raise NotImplementedError

    async def serve(self) -> None:
        """Start listening, once."""
        async with self._lock:
            if self._server is None:
                self._server = await asyncio.start_server(self._connection, HOST, 0)
                self.port = int(self._server.sockets[0].getsockname()[1])
                log.info("%s listening on %s:%d", self.name, HOST, self.port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    def refused(self, status: int, title: str, text: str) -> Reply:
        return Reply(status, self.page(title, f"<p>{text}</p>"))

    async def form(self, request: Request, reader: asyncio.StreamReader) -> str:
        """A POST's url-encoded body, from this page's own origin. Raises `Refusal`."""
        if request.headers.get("origin", self.origin) != self.origin:
            log.warning("%s: a POST from another origin was refused", self.name)
            raise Refusal(403, "Refused", "This form only accepts its own page.")
        kind = request.headers.get("content-type", "")
        if not kind.startswith("application/x-www-form-urlencoded"):
            raise Refusal(415, "Refused", "Send the form from its page.")
        length = int(request.headers.get("content-length", "0"))
        if length < 0 or length > MAX_BODY:
            raise Refusal(413, "Refused", "Too much data.")
        body = await asyncio.wait_for(reader.readexactly(length), READ_TIMEOUT_S)
        return body.decode("utf-8", errors="strict")

    async def _head(self, reader: asyncio.StreamReader) -> Request:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT_S)
        if len(head) > MAX_HEAD:
            raise Refusal(431, "Bad request", "Headers too large.")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if headers.get("host") != f"{HOST}:{self.port}":
            raise Refusal(421, "Refused", "Open the link exactly as given.")
        return Request(method, target, headers)

    async def _answer(self, reader: asyncio.StreamReader) -> Reply:
        try:
            return await self.route(await self._head(reader), reader)
        except Refusal as no:
            return self.refused(no.status, no.title, no.text)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return self.refused(400, "Bad request", "The request was not complete.")
        except (ValueError, UnicodeDecodeError):
            return self.refused(400, "Bad request", "The request was malformed.")
        except Exception as exc:  # only the type: the text might quote a value or a link
            log.warning("%s: a request failed (%s)", self.name, type(exc).__name__)
            return Reply(500, self.page("Not sure what happened", self.failed))

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            writer.write(http_response(await self._answer(reader)))
            await writer.drain()
        except Exception:  # a broken connection must never hurt the gateway
            log.warning("%s: a connection failed", self.name)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    421: "Misdirected Request",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


def http_response(reply: Reply) -> bytes:
    """The whole HTTP response: never cached, framed nowhere, no Referer elsewhere."""
    body = reply.body.encode("utf-8")
    head = [
        f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, 'Error')}",
        "Content-Type: text/html; charset=utf-8",
        f"Content-Length: {len(body)}",
        f"Content-Security-Policy: {CSP}",
        "X-Content-Type-Options: nosniff",
        "X-Frame-Options: DENY",
        "Referrer-Policy: same-origin",  # no-referrer would make browsers send `Origin: null`
        "Cache-Control: no-store",
        "Connection: close",
    ]
    if reply.status == 405:
        head.append("Allow: GET, POST")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
