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

log = logging.getLogger(__name__)


def describe_validation(exc: pydantic.ValidationError) -> str:
    parts: list[str] = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


class ContractErrors(Middleware):
    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        name = getattr(context.message, "name", "?")
        try:
            return await call_next(context)
        except ArgumentError as exc:
            cause = exc.__cause__
            detail = (
                describe_validation(cause)
                if isinstance(cause, pydantic.ValidationError)
                else str(exc)
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
        except ToolError:
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
