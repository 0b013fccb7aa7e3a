"""Which client a request comes from, in both MCP protocol eras.

The key decides whose state a call sees, so it must never let one client reach another's:

- Handshake era (2025-11-25 and older): `session:<ctx.session_id>`. The id is stable for
  the connection and, over HTTP, issued and checked by the server (an unknown
  `Mcp-Session-Id` is refused with "Session not found"), so it cannot be forged.
- Modern era (2026-07-28) has no sessions: `ctx.session_id` changes on every request, so:
  - an authenticated principal keys the bucket (`user:<sha256>`), optionally split further
    by a client-chosen key header;
  - otherwise a client-chosen key from the `X-Gwanjong-Session` header (name configurable),
    or from `Mcp-Session-Id`, which modern clients may set freely: `client:<sha256>`. Such a
    key is a bearer secret, so it must be long and random (a UUID);
  - otherwise, without any HTTP request (stdio, in-memory), the process serves a single
    client: `process`;
  - otherwise (anonymous HTTP without a key) there is nothing that tells clients apart, and
    one shared bucket would leak state between them, so the call is refused with a message
    that says which header to send.

The prefixes keep the spaces apart: a modern client that sends a victim's handshake
session id as its key lands in `client:<hash>`, never in `session:<id>`.
"""

from __future__ import annotations

import hashlib
import re

from fastmcp import Context
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_http_headers, get_http_request
from fastmcp.server.sessions import current_principal
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

DEFAULT_CLIENT_KEY_HEADER = "X-Gwanjong-Session"
PROCESS_KEY = "process"
_MCP_SESSION_HEADER = "mcp-session-id"

# Long enough that a random key cannot be guessed, short enough to bound memory; printable
# ASCII only so keys never carry control characters into logs.
_CLIENT_KEY_PATTERN = re.compile(r"[\x21-\x7e]{16,256}")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_modern(ctx: Context) -> bool:
    request = ctx.request_context
    return request is None or request.protocol_version in MODERN_PROTOCOL_VERSIONS


def _over_http() -> bool:
    try:
        get_http_request()
    except RuntimeError:
        return False
    return True


def _supplied_key(header: str) -> str | None:
    headers = get_http_headers(include_all=True)  # names come lower-cased
    for name in (header.lower(), _MCP_SESSION_HEADER):
        value = headers.get(name)
        if value is None:
            continue
        if not _CLIENT_KEY_PATTERN.fullmatch(value):
            raise ToolError(
                f"The `{name}` header must be 16 to 256 printable characters without "
                "spaces; send a random UUID and reuse it for the whole workflow."
            )
        return value
    return None


def client_key(ctx: Context, *, header: str = DEFAULT_CLIENT_KEY_HEADER) -> str:
    """The state-store key for the client behind `ctx` (see the module docstring).

    Raises:
        ToolError: for an anonymous modern-era HTTP request without a key header, or a
            key header that is too short or malformed.
    """
    if not _is_modern(ctx):
        return f"session:{ctx.session_id}"
    supplied = _supplied_key(header)
    principal = current_principal()
    if principal is not None:
        user = f"user:{_digest(principal)}"
        return f"{user}:client:{_digest(supplied)}" if supplied else user
    if supplied is not None:
        return f"client:{_digest(supplied)}"
    if not _over_http():
        return PROCESS_KEY
    raise ToolError(
        "This server keeps your workflow state between calls, but this HTTP request does "
        "not say which client it comes from (protocol 2026-07-28 has no sessions). Send a "
        f"`{header}: <random UUID>` header with every request, or connect with protocol "
        "2025-11-25."
    )
