"""Which rate window an atproto request counts against (the shared host gate does the rest)."""

from __future__ import annotations


def limit_key(path: str) -> str:
    """Which of our windows a request counts against: sign-ins, record writes, or reads."""
    method = path.rsplit("/", 1)[-1]
    if method in ("com.atproto.server.createSession", "com.atproto.server.refreshSession"):
        return "session"
    return "write" if method.startswith("com.atproto.repo.") else "read"
