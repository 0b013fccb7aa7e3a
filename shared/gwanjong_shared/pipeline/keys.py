"""Which client a request comes from, in both MCP protocol eras.

The key decides whose state a call sees, so it must never let one client reach another's.
Rules, first match wins:

0. An authenticated principal (HTTP with auth on), in either era: `user:<sha256>`,
   optionally split by a client key header (`user:<sha256>:client:<sha256>`). MCP session
   ids are not part of it, so a user's state survives reconnects and another user's
   session id or key reaches nothing of theirs.
1. Handshake era (2025-11-25 and older) with a session: `session:<ctx.session_id>`. Over
   stdio and in-memory the id is generated once per connection; over HTTP it is the
   `Mcp-Session-Id` the server issued and checks on every request (an unknown id gets
   "Session not found"), so it cannot be forged.
2. Otherwise nothing stable comes with the request: the modern era (2026-07-28) has no
   sessions and `ctx.session_id` is new on every request, and a handshake-era client of a
   `stateless_http` server gets no session either. Then:
   - a client-chosen key from the `X-Gwanjong-Session` header (name configurable) or,
     in the modern era, from `Mcp-Session-Id`, which such clients may set freely:
     `client:<sha256>`. The key is a bearer secret, so it must be long (a random UUID);
   - else, without an HTTP request (stdio, in-memory), the process serves one client:
     `process`;
   - else (anonymous HTTP without a key) nothing tells clients apart, and one shared bucket
     would leak state between them, so the call is refused with a ToolError that says which
     header to send.

The prefixes keep the spaces apart: a modern client presenting a victim's handshake
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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_modern(ctx: Context) -> bool:
    request = ctx.request_context
    # No request context (a server-side call outside any request): no session either.
    return request is None or request.protocol_version in MODERN_PROTOCOL_VERSIONS


def _over_http() -> bool:
    try:
        get_http_request()
    except RuntimeError:
        return False
    return True


class ClientKeyError(ToolError):
    """No usable client key: the caller's to fix, not an outage (`kind`, as the error
    middleware reads it; `NeedsPreviousStep` declares its own the same way)."""

    kind = "invalid_input"


def supplied_key(names: tuple[str, ...]) -> str | None:
    """The first of these headers the request sends (names lower-cased), checked."""
    headers = get_http_headers(include_all=True)  # names come lower-cased
    for name in names:
        value = headers.get(name)
        if value is None:
            continue
        if not _CLIENT_KEY_PATTERN.fullmatch(value):
            raise ClientKeyError(
                f"The `{name}` header must be 16 to 256 printable characters without "
                "spaces; send a random UUID and reuse it for the whole workflow."
            )
        return value
    return None


def client_key(ctx: Context, *, header: str = DEFAULT_CLIENT_KEY_HEADER) -> str:
    """The state-store key for the client behind `ctx` (rules in the module docstring).

    Raises:
        ToolError: for an anonymous HTTP request that carries neither a session nor a
            client key header, or a key header that is too short or malformed.
    """
    modern = _is_modern(ctx)
    http = _over_http()
    names = (header.lower(), _MCP_SESSION_HEADER) if modern else (header.lower(),)
    principal = current_principal()
    if principal is not None:
        # Signed in: the principal is the wall, in both eras; a key header only splits
        # one user's workflows, and no header can name another user's bucket.
        supplied = supplied_key(names)
        user = f"user:{digest(principal)}"
        return f"{user}:client:{digest(supplied)}" if supplied else user
    if not modern and (not http or _MCP_SESSION_HEADER in get_http_headers(include_all=True)):
        return f"session:{ctx.session_id}"
    supplied = supplied_key(names)
    if supplied is not None:
        return f"client:{digest(supplied)}"
    if not http:
        return PROCESS_KEY
    hint = " (or connect with protocol 2025-11-25, which has sessions)" if modern else ""
    raise ClientKeyError(
        "This server keeps your workflow state between calls, but nothing in this HTTP "
        "request identifies your client: no MCP session and no sign-in. Send a "
        f"`{header}: <random UUID>` header with every request{hint}."
    )
