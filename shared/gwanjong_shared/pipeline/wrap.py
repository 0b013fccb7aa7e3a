"""Signature surgery: the function FastMCP registers in place of a pipeline tool.

The registered function has the user's public parameters, plus one keyword-only
parameter whose default is a `Depends(...)`. FastMCP resolves it per call and leaves it
out of the input schema, and a client that sends it anyway is refused as an unexpected
argument. The user's own state parameter is removed: the wrapper passes the state in.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Any, get_args, get_origin

import anyio.to_thread

from gwanjong_shared.pipeline.state import PipelineState
from gwanjong_shared.pipeline.stored import Stored

Body = Callable[[dict[str, Any], Any], Awaitable[Any]]
"""Runs one call: receives the public arguments and the resolved hidden value."""

FALLBACK_HIDDEN_NAME = "pipeline_state"


def type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """`fn`'s resolved annotations (string annotations included), `Annotated` kept."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception as error:  # unresolvable forward reference: say which tool
        raise TypeError(f"cannot resolve the type hints of {fn.__qualname__}: {error}") from error


def find_state_parameter(
    fn: Callable[..., Any], hints: dict[str, Any], state_type: type[PipelineState]
) -> str | None:
    """The name of `fn`'s parameter annotated with a state class, if any."""
    found: list[str] = []
    for name in inspect.signature(fn).parameters:
        annotation = hints.get(name)
        if isinstance(annotation, type) and issubclass(annotation, PipelineState):
            if not issubclass(state_type, annotation):
                raise TypeError(
                    f"{fn.__qualname__}: parameter `{name}` is {annotation.__name__}, "
                    f"but this pipeline holds {state_type.__name__}"
                )
            found.append(name)
    if len(found) > 1:
        raise TypeError(f"{fn.__qualname__}: only one state parameter is allowed, got {found}")
    return found[0] if found else None


def result_annotation(annotation: Any) -> Any:
    """`X` for `Stored[X]` (the model sees `X`), `Any` for a bare `Stored`."""
    if annotation is Stored:
        return Any
    if get_origin(annotation) is Stored:
        return get_args(annotation)[0]
    return annotation


async def call_user_function(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Await an async tool; run a sync one in a worker thread, as FastMCP itself does."""
    if inspect.iscoroutinefunction(fn):
        return await fn(**kwargs)
    result = await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
    return await result if inspect.isawaitable(result) else result


def registrable(
    fn: Callable[..., Any],
    *,
    hints: dict[str, Any],
    state_param: str | None,
    hidden_default: object,
    body: Body,
) -> Callable[..., Awaitable[Any]]:
    """An async function that looks like `fn` minus its state parameter, and runs `body`."""
    signature = inspect.signature(fn)
    params = [
        param.replace(annotation=hints.get(name, param.annotation))
        for name, param in signature.parameters.items()
        if name != state_param
    ]
    hidden_name = state_param or FALLBACK_HIDDEN_NAME
    if any(param.name == hidden_name for param in params):
        raise TypeError(f"{fn.__qualname__}: the parameter name `{hidden_name}` is reserved")
    hidden = inspect.Parameter(
        hidden_name, inspect.Parameter.KEYWORD_ONLY, default=hidden_default, annotation=Any
    )
    # A **kwargs parameter must stay last.
    tail = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    head = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
    returns = result_annotation(hints.get("return", inspect.Signature.empty))

    async def wrapper(**kwargs: Any) -> Any:
        hidden_value = kwargs.pop(hidden_name)
        return await body(kwargs, hidden_value)

    wrapper.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*head, hidden, *tail], return_annotation=returns
    )
    annotations = {p.name: p.annotation for p in [*head, *tail] if p.annotation is not p.empty}
    annotations[hidden_name] = Any
    if returns is not inspect.Signature.empty:
        annotations["return"] = returns
    wrapper.__annotations__ = annotations
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    wrapper.__module__ = fn.__module__
    return wrapper
