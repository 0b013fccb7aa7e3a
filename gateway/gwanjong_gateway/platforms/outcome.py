"""What one call to a platform server came to, at the transport level.

Only platforms/client.py reads the answer itself (`result`): it validates it into the
contract's models. Everything else sees the kind of a failure, its text and the
platform's rate window.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.types import CallToolResult

from gwanjong_shared.contract.errors import ErrorKind, PlatformError, read_error
from gwanjong_shared.contract.rate import RateWindow, window_from_meta


@dataclass
class Outcome:
    """One upstream call: the raw result on success, else the error's kind and text."""

    ok: bool
    kind: ErrorKind | None = None
    message: str = ""
    retry_after: float | None = None
    rate: RateWindow | None = None  # the platform's budget, when its server knew it
    unsent: bool = False  # the server failed it before anything left (ErrorBody.unsent)
    #: the server's answer, parsed by platforms/client.py alone
    result: CallToolResult | None = None

    @classmethod
    def failure(
        cls,
        kind: ErrorKind,
        message: str,
        retry_after: float | None = None,
        rate: RateWindow | None = None,
    ) -> Outcome:
        return cls(ok=False, kind=kind, message=message, retry_after=retry_after, rate=rate)

    @classmethod
    def answered(cls, result: CallToolResult) -> Outcome:
        """The server answered: a success, or its error as data (or as text, from a
        server that sends text only)."""
        rate = window_from_meta(result.meta)
        if not result.is_error:
            return cls(ok=True, rate=rate, result=result)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        body = read_error(result.structured_content, text)
        failed = cls.failure(body.kind, body.message, body.retry_after, rate)
        failed.result, failed.unsent = result, body.unsent
        return failed

    def raise_for_error(self) -> None:
        """Raise the failure as the one PlatformError every reader of a platform sees."""
        if not self.ok:
            kind = self.kind or ErrorKind.UNAVAILABLE
            raise PlatformError(
                kind, self.message, retry_after=self.retry_after, unsent=self.unsent
            )
