"""The small set of error kinds every platform server reports.

A tool failure reaches the model as an MCP tool error whose text starts with the kind,
then one sentence saying what to do next::

    not_found: No Dev.to article has id 123. Check the id from search or trending.
    rate_limited retry_after=30: Dev.to is throttling us. Wait 30 seconds, then retry.

The same error travels as data beside that text: the result's structured content is
``{"error": {"kind", "message", "retry_after"}}`` (:class:`ErrorResult`), which the gateway
reads first. :func:`parse_error` reads the text prefix back, for a server that sends text
only, so any MCP server that follows this format can join as a platform.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from enum import StrEnum

import pydantic
from fastmcp.exceptions import ToolError
from pydantic import BaseModel, ConfigDict


class ErrorKind(StrEnum):
    AUTH = "auth"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    INVALID_INPUT = "invalid_input"
    NOT_SUPPORTED = "not_supported"
    UNAVAILABLE = "unavailable"
    TIMEOUT = "timeout"
    NEEDS_PREVIOUS_STEP = "needs_previous_step"  # an order hint: call the named tool first


#: A write that failed with one of these may have been written (its answer was lost: a
#: timeout, a 5xx, a dropped connection). The gateway holds it as unknown and reads it back;
#: it never tells the model that nothing was written. Servers word it with
#: ``kit.once.lost_answer``. An error marked ``unsent`` was raised before anything left
#: for the platform (a check, the write hold): not unsure, whatever its kind.
UNSURE = frozenset({ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE})


class PlatformError(ToolError):
    """Raised by adapters (and by a client reading a failed call). It is a ToolError, so
    FastMCP sends its text to the model as is (an expected outcome, logged at INFO without
    a traceback)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retry_after: float | None = None,
        unsent: bool = False,
    ) -> None:
        super().__init__(format_error(kind, message, retry_after), log_level=logging.INFO)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        self.unsent = unsent

    @property
    def unsure(self) -> bool:
        """A write that failed so may still have been written (see UNSURE)."""
        return self.kind in UNSURE and not self.unsent

    @property
    def body(self) -> ErrorBody:
        return ErrorBody.of(self.kind, self.message, self.retry_after, unsent=self.unsent)


class ErrorBody(BaseModel):
    """One tool failure as data: what the text prefix says, typed."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: ErrorKind
    message: str
    retry_after: float | None = None
    #: raised before anything left for the platform: a failed write, never an unsure one
    unsent: bool = False

    @classmethod
    def of(
        cls, kind: ErrorKind, message: str, retry_after: float | None = None, unsent: bool = False
    ) -> ErrorBody:
        # The same seconds as the text says, so both readers wait alike.
        wait = _wait_s(kind, retry_after)
        return cls(kind=kind, message=message, retry_after=wait, unsent=unsent)

    @property
    def text(self) -> str:
        return format_error(self.kind, self.message, self.retry_after)


class ErrorResult(BaseModel):
    """The structured content of a failed contract tool call."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    error: ErrorBody


def read_error(structured: object, text: str) -> ErrorBody:
    """A failed call's error: from its structured content when it carries one, else from
    the text prefix (a server that sends text only)."""
    if isinstance(structured, Mapping) and "error" in structured:
        try:
            return ErrorResult.model_validate(structured).error
        except pydantic.ValidationError:
            pass  # not ours: the text still says it
    kind, message, after = parse_error(text)
    return ErrorBody(kind=kind, message=message, retry_after=after)


def _wait_s(kind: ErrorKind, retry_after: float | None) -> float | None:
    if kind is not ErrorKind.RATE_LIMITED:
        return retry_after
    # Round up: waiting a fraction too long is harmless, too short earns another 429.
    return max(1, math.ceil(retry_after - 1e-6)) if retry_after is not None else 60


def format_error(kind: ErrorKind, message: str, retry_after: float | None = None) -> str:
    if kind is ErrorKind.RATE_LIMITED:
        return f"{kind.value} retry_after={_wait_s(kind, retry_after):.0f}: {message}"
    return f"{kind.value}: {message}"


_PREFIX = re.compile(
    r"^(?P<kind>[a-z_]+)(?: retry_after=(?P<after>\d+(?:\.\d+)?))?: (?P<msg>.*)$", re.S
)


def parse_error(text: str) -> tuple[ErrorKind, str, float | None]:
    """Split an error text into (kind, message, retry_after); unknown shapes are `unavailable`."""
    match = _PREFIX.match(text.strip())
    if match:
        try:
            kind = ErrorKind(match["kind"])
        except ValueError:
            return ErrorKind.UNAVAILABLE, text.strip(), None
        after = float(match["after"]) if match["after"] else None
        return kind, match["msg"], after
    return ErrorKind.UNAVAILABLE, text.strip(), None


# Convenience constructors keep adapter code short and the wording consistent.
def auth(message: str) -> PlatformError:
    return PlatformError(ErrorKind.AUTH, message)


def not_found(message: str) -> PlatformError:
    return PlatformError(ErrorKind.NOT_FOUND, message)


def rate_limited(message: str, retry_after: float | None) -> PlatformError:
    return PlatformError(ErrorKind.RATE_LIMITED, message, retry_after=retry_after)


def invalid_input(message: str) -> PlatformError:
    return PlatformError(ErrorKind.INVALID_INPUT, message)


def not_supported(message: str) -> PlatformError:
    return PlatformError(ErrorKind.NOT_SUPPORTED, message)


def unavailable(message: str, *, unsent: bool = False) -> PlatformError:
    return PlatformError(ErrorKind.UNAVAILABLE, message, unsent=unsent)


def timeout(message: str) -> PlatformError:
    return PlatformError(ErrorKind.TIMEOUT, message)
