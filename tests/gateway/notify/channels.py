"""Real channels on 127.0.0.1 for the notifier's tests and benchmark: an HTTP receiver
(Apprise's json:// and ntfy:// POST to it), an SMTP server (aiosmtpd), one that refuses
(HTTP 500) and one that hangs (accepts, never answers)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    posts: list[tuple[str, bytes]] = field(default_factory=list)
    mails: list[tuple[list[str], str, str]] = field(default_factory=list)  # to, subject, text


@contextmanager
def http_receiver(status: int = 200) -> Iterator[tuple[int, Received]]:
    got = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("content-length", 0))
            got.posts.append((self.path, self.rfile.read(size)))
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1]), got
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def smtp_server() -> Iterator[tuple[int, Received]]:
    from aiosmtpd.controller import Controller

    got = Received()

    class Mailbox:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            mail = message_from_bytes(envelope.content, policy=policy.default)
            part = mail.get_body(("plain",))  # pyright: ignore[reportAttributeAccessIssue]
            text = part.get_content() if part is not None else ""
            got.mails.append((list(envelope.rcpt_tos), str(mail["subject"]), str(text)))
            return "250 OK"

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    controller = Controller(Mailbox(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, got
    finally:
        controller.stop()


@contextmanager
def hanging_port() -> Iterator[int]:
    """Accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])
