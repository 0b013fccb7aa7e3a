"""Middleware that gives every tool failure the contract's `kind: what to do next` form.

Argument errors from schema validation, unknown tools and unexpected exceptions would
otherwise reach the model as pydantic dumps or tracebacks; here they become one line.
"""

from __future__ import annotations

import logging
from typing import Any

import pydantic
from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.exceptions import ValidationError as ArgumentError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from gwanjong_shared.errors import ErrorKind, format_error
from gwanjong_shared.untrusted import ECHO_CHARS, clean, has_hidden, one_line

log = logging.getLogger(__name__)
MAX_ERROR_CHARS = 1000


def describe_validation(exc: pydantic.ValidationError) -> str:
    # Never the input itself: locations (which may be keys the caller chose) and messages,
    # each cleaned and bounded, so a 1 MB argument yields a short error.
    parts: list[str] = []
    for err in exc.errors(include_input=False, include_url=False)[:5]:
        where = ".".join(one_line(str(p), 60) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {one_line(str(err.get('msg', 'invalid')), 120)}")
    return one_line("; ".join(parts), ECHO_CHARS * 2)


class ContractErrors(Middleware):
    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        name = one_line(str(getattr(context.message, "name", "?")), 60)
        try:
            return await call_next(context)
        except ArgumentError as exc:
            cause = exc.__cause__
            detail = (
                describe_validation(cause)
                if isinstance(cause, pydantic.ValidationError)
                else one_line(str(exc), ECHO_CHARS)
            )
            raise ToolError(
                format_error(
                    ErrorKind.INVALID_INPUT,
                    f"Bad arguments for {name}: {detail}. Fix them (see the tool's input schema) "
                    "and call again.",
                )
            ) from None
        except NotFoundError:
            raise ToolError(
                format_error(
                    ErrorKind.INVALID_INPUT,
                    f"There is no tool named {name!r}. List the tools and use one of those.",
                )
            ) from None
        except ToolError as exc:
            text = str(exc)
            if len(text) > MAX_ERROR_CHARS or has_hidden(text):
                # An error may quote a platform's answer or an input: cleaned and bounded.
                raise ToolError(clean(text, MAX_ERROR_CHARS)) from None
            raise
        except pydantic.ValidationError as exc:
            raise ToolError(
                format_error(
                    ErrorKind.INVALID_INPUT,
                    f"Bad arguments for {name}: {describe_validation(exc)}.",
                )
            ) from None
        except Exception as exc:  # the last line of defence: never a traceback to the model
            log.error(
                "tool %s failed unexpectedly: %s",
                name,
                type(exc).__name__,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            raise ToolError(
                format_error(
                    ErrorKind.UNAVAILABLE,
                    f"{name} failed unexpectedly ({type(exc).__name__}). Try again; if it keeps "
                    "failing, check the server's log.",
                )
            ) from None
