"""Team bearer tokens: `<state_dir>/tokens.json` keeps names, dates and SHA-256 digests.

A token is 256 random bits, so a plain SHA-256 is as strong as a slow hash here; it is
printed once, never stored. The file is rewritten atomically (0600) under a lock and
re-read when it changes, so a revocation applies on the next request.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from gwanjong_gateway.paths import exclusive_lock, replace_private

TOKENS_FILE = "tokens.json"
TOKEN_PREFIX = "gwj_"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")

Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


class TokenError(Exception):
    """A token command that cannot be done, worded for the person running it."""


@dataclass(frozen=True)
class TokenEntry:
    name: str
    sha256: str
    created: str
    revoked: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked is None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenStore:
    """The token file of one state dir. Reads are cached until the file changes."""

    def __init__(self, path: Path, clock: Clock = _utc_now) -> None:
        self.path = path
        self.lock = path.with_suffix(".lock")
        self._clock = clock
        self._loaded = False
        self._seen: tuple[int, int, int] | None = None
        self._active: dict[str, str] = {}  # digest -> name

    # -- reading ------------------------------------------------------------------------

    def entries(self) -> list[TokenEntry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        try:
            rows = json.loads(text)["tokens"]
            return [TokenEntry(**row) for row in rows]
        except (ValueError, KeyError, TypeError) as exc:
            raise TokenError(
                f"{self.path} is damaged ({type(exc).__name__}); fix or remove it."
            ) from None

    def lookup(self, token: str) -> str | None:
        """The name of the active token `token` is, or None."""
        self._refresh()
        return self._active.get(digest(token))

    def is_active(self, sha256: str) -> bool:
        """Whether the token of digest `sha256` is active now."""
        self._refresh()
        return sha256 in self._active

    def active_count(self) -> int:
        self._refresh()
        return len(self._active)

    def _refresh(self) -> None:
        try:
            st = self.path.stat()
            seen: tuple[int, int, int] | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            seen = None
        if self._loaded and seen == self._seen:
            return
        self._active = {e.sha256: e.name for e in self.entries() if e.active}
        self._seen, self._loaded = seen, True

    # -- changing -----------------------------------------------------------------------

    def add(self, name: str) -> str:
        """Issue a token for `name`; returns the token (the only time it exists in clear)."""
        if not NAME_PATTERN.fullmatch(name):
            raise TokenError(
                f"{name!r} is not a usable name: 1 to 64 letters, digits, '.', '_', '@' or '-'."
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with exclusive_lock(self.lock):  # two `token add` at once must not lose one write
            entries = self.entries()
            if any(e.name == name and e.active for e in entries):
                raise TokenError(
                    f"{name!r} already has a token; revoke it first (gwanjong token revoke {name})."
                )
            entries.append(TokenEntry(name, digest(token), self._stamp()))
            self._write(entries)
        return token

    def revoke(self, name: str) -> bool:
        """Revoke the active token of `name`; False if there is none."""
        with exclusive_lock(self.lock):
            entries = self.entries()
            mine = [e for e in entries if e.name == name and e.active]
            if mine:
                stamp = self._stamp()
                self._write([replace(e, revoked=stamp) if e in mine else e for e in entries])
        return bool(mine)

    def _stamp(self) -> str:
        return self._clock().astimezone(UTC).isoformat(timespec="seconds")

    def _write(self, entries: list[TokenEntry]) -> None:
        replace_private(
            self.path, json.dumps({"tokens": [asdict(e) for e in entries]}, indent=2) + "\n"
        )


def store_for(state_dir: Path, clock: Clock = _utc_now) -> TokenStore:
    return TokenStore(state_dir / TOKENS_FILE, clock)
