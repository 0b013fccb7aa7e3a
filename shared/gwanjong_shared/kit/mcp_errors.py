"""Middleware that gives every tool failure the contract's `kind: what to do next` form.

Argument errors from schema validation, unknown tools and unexpected exceptions would
otherwise reach the model as pydantic dumps or tracebacks; here they become one line,
and the same error as data in the result's structured content (``{"error": {...}}``).
"""

from __future__ import annotations

import logging
from typing import Any, LiteralString

import pydantic
from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.exceptions import ValidationError as ArgumentError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, TextContent
from pydantic import ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import PydanticCustomError

from gwanjong_shared.contract.errors import (
    ErrorBody,
    ErrorKind,
    ErrorResult,
    PlatformError,
    parse_error,
)
from gwanjong_shared.contract.untrusted import ECHO_CHARS, clean, has_hidden, one_line, quote

log = logging.getLogger(__name__)
MAX_ERROR_CHARS = 1000


def describe_validation(exc: pydantic.ValidationError) -> str:
    # Never the input itself: locations (which may be keys the caller chose) and messages,
    # each cleaned and bounded, so a 1 MB argument yields a short error.
    parts: list[str] = []
    for err in exc.errors(include_input=False, include_url=False)[:5]:
        # a key with hidden characters is marked: '\u202etopic' is no 'topic'
        loc = [quote(p, 60) if has_hidden(str(p)) else one_line(str(p), 60) for p in err["loc"]]
        where = ".".join(loc) or "arguments"
        parts.append(f"{where}: {one_line(str(err.get('msg', 'invalid')), 120)}")
    return one_line("; ".join(parts), ECHO_CHARS * 2)


def one_error(message: LiteralString) -> WrapValidator:
    """A union argument's failure as ``message`` alone: pydantic lists one error per branch,
    each named by its Python type (`literal[...]`, `list[str]`), which the caller never wrote."""

    def check(value: object, handler: ValidatorFunctionWrapHandler) -> object:
        try:
            return handler(value)
        except pydantic.ValidationError:
            raise PydanticCustomError("one_of", message) from None

    return WrapValidator(check)


def error_result(body: ErrorBody) -> ToolResult:
    """A failed call as the model and the gateway see it: the `kind: ...` text for people
    and other agents, the same error as data for programs. Every output schema we declare
    admits this shape (`contract.schemas.output_schema`): strict clients check structured
    content against the schema on error results too."""
    return ToolResult(
        content=[TextContent(type="text", text=body.text)],
        structured_content=ErrorResult(error=body).model_dump(mode="json"),
        is_error=True,
    )


def _unexpected(name: str, exc: BaseException) -> ErrorBody:
    return ErrorBody.of(
        ErrorKind.UNAVAILABLE,
        f"{name} failed unexpectedly ({type(exc).__name__}). Try again; if it keeps "
        "failing, check the server's log.",
    )


def _declared_kind(exc: ToolError) -> ErrorKind | None:
    """The kind a ToolError subclass declares as a class attribute (the pipeline's
    `NeedsPreviousStep` does: the pipeline may not import the contract)."""
    declared = getattr(type(exc), "kind", None)
    try:
        return ErrorKind(declared) if isinstance(declared, str) else None
    except ValueError:
        return None


def _from_tool_error(name: str, exc: ToolError) -> tuple[ErrorBody, BaseException | None]:
    if isinstance(exc, PlatformError):
        body = exc.body
    elif (kind := _declared_kind(exc)) is not None:  # e.g. the pipeline's order hint
        body = ErrorBody.of(kind, str(exc))
    else:  # a bare ToolError (ours or FastMCP's) says its kind in its text, if at all
        kind, message, after = parse_error(str(exc))
        cause = exc.__cause__
        if not str(exc).startswith(kind.value) and isinstance(cause, Exception):
            # FastMCP's mask of an exception a tool raised ("Error calling tool ...")
            return _unexpected(name, cause), cause
        body = ErrorBody.of(kind, message, after)
    if len(body.text) > MAX_ERROR_CHARS or has_hidden(body.text):
        # An error may quote a platform's answer or an input: cleaned and bounded.
        return body.model_copy(update={"message": clean(body.message, MAX_ERROR_CHARS)}), None
    return body, None


def _answer(name: str, exc: Exception) -> tuple[ErrorBody, BaseException | None]:
    """The error the caller gets for a tool call that raised ``exc`` (not an unknown tool:
    that one is a protocol error), and the unexpected exception it stands for, if any."""
    if isinstance(exc, ArgumentError):
        cause = exc.__cause__
        detail = (
            describe_validation(cause)
            if isinstance(cause, pydantic.ValidationError)
            else one_line(str(exc), ECHO_CHARS)
        )
        return ErrorBody.of(
            ErrorKind.INVALID_INPUT,
            f"Bad arguments for {name}: {detail}. Fix them (see the tool's input schema) "
            "and call again.",
        ), None
    if isinstance(exc, ToolError):
        return _from_tool_error(name, exc)
    if isinstance(exc, pydantic.ValidationError):
        return ErrorBody.of(
            ErrorKind.INVALID_INPUT, f"Bad arguments for {name}: {describe_validation(exc)}."
        ), None
    return _unexpected(name, exc), exc  # the last line of defence: never a traceback


def answered_kind(exc: Exception) -> ErrorKind:
    """The error kind the caller gets for a tool call that raised ``exc`` (what
    `ContractErrors` answers), so the figures that count errors by kind (metrics, usage)
    count what the caller saw. An unknown tool is answered as a protocol error (JSON-RPC
    -32602, invalid params): `invalid_input`."""
    if isinstance(exc, NotFoundError):
        return ErrorKind.INVALID_INPUT
    return _answer("", exc)[0].kind


class ContractErrors(Middleware):
    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        raw = str(getattr(context.message, "name", "?"))
        name = one_line(raw, 60)
        try:
            return await call_next(context)
        except NotFoundError:
            # A protocol error, not a tool's answer (there is no tool to answer): JSON-RPC
            # -32602, as MCP names an unknown tool and FastMCP an unknown resource.
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown tool: {quote(raw, 60)}. List the tools and use one of those.",
                data={"name": name},
            ) from None
        except Exception as exc:
            body, unexpected = _answer(name, exc)
            if unexpected is not None:
                log.error(
                    "tool %s failed unexpectedly: %s",
                    name,
                    type(unexpected).__name__,
                    exc_info=log.isEnabledFor(logging.DEBUG),
                )
            return error_result(body)
