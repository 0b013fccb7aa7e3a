"""One ASGI app serving every platform emulator plus the `/_sandbox/` control API.

Control API (JSON), used by tests, the demo and the benchmarks:

- ``GET  /_sandbox/health`` -> {"ok": true, "platforms": [...], "servable": [...]}
- ``GET  /_sandbox/ids/{platform}`` -> logical corpus key -> platform post id
- ``GET  /_sandbox/env/{platform}`` -> env vars that point that platform's server here
- ``POST /_sandbox/faults`` {platform, kind, status, retry_after, seconds, ms, count, match,
  method, body, content_type, headers} (kinds: status, hang, hang_after, slow_write, latency, lag,
  apply_then_status, apply_then_drop, headers; see `state.Fault`; ``body``: a raw error body, e.g.
  "" for a CDN's empty 403; ``match``/``method``: only requests whose path contains it /
  with that method, e.g. a write endpoint)
- ``DELETE /_sandbox/faults`` -> drop pending faults and latency (emulators keep their state)
- ``GET  /_sandbox/writes[?platform=]`` -> every write received, oldest first
- ``GET  /_sandbox/requests`` -> request counts per platform
- ``GET  /_sandbox/requests/paths`` -> request counts per "platform METHOD path"
- ``POST /_sandbox/reset`` -> faults, writes and every emulator back to the seed
- ``POST /_sandbox/posts`` {key, title, body, author, tags, likes, hours_ago, comments:
  [{key, author, body, likes, minutes, deleted}]} -> a thread added to every platform until the next reset
- ``POST /_sandbox/inbox`` {summons, noise, noise_last, hours_ago} -> an inbox flood on
  every platform until the next reset (``flood.add_flood``): summons mixed with items that
  summon nobody, served in each platform's real pages; answers the flood thread's id per
  platform and the summons' texts, oldest first
- ``GET  /_sandbox/hosts`` -> every Host header received, with counts
"""

from __future__ import annotations

import dataclasses
import logging

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gwanjong_sandbox import flood
from gwanjong_sandbox.corpus import Node, Thread, add_thread, clear_extra
from gwanjong_sandbox.emulator import Emulator, make_emulators
from gwanjong_sandbox.state import Fault, SandboxState

log = logging.getLogger(__name__)


def _control(
    state: SandboxState, emulators: dict[str, Emulator], paths: dict[str, int]
) -> Starlette:
    async def health(_: Request) -> Response:
        servable = sorted(name for name, e in emulators.items() if hasattr(e, "demo_env"))
        return JSONResponse({"ok": True, "platforms": sorted(emulators), "servable": servable})

    async def ids(request: Request) -> Response:
        platform = request.path_params["platform"]
        if platform not in emulators:
            return JSONResponse({"error": f"unknown platform {platform!r}"}, status_code=404)
        return JSONResponse(emulators[platform].ids())

    async def env(request: Request) -> Response:
        platform = request.path_params["platform"]
        emulator = emulators.get(platform)
        make = getattr(emulator, "demo_env", None)
        if make is None:
            return JSONResponse({"error": f"no server env for {platform!r}"}, status_code=404)
        return JSONResponse(make(str(request.base_url).rstrip("/")))

    async def faults(request: Request) -> Response:
        body = await request.json()
        try:
            fault = Fault(**body)
        except TypeError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        if fault.platform not in emulators:
            return JSONResponse({"error": f"unknown platform {fault.platform!r}"}, status_code=400)
        state.faults.append(fault)
        return JSONResponse({"ok": True, "pending": len(state.faults)})

    async def clear_faults(_: Request) -> Response:
        state.faults.clear()
        return JSONResponse({"ok": True})

    async def writes(request: Request) -> Response:
        platform = request.query_params.get("platform")
        rows = [dataclasses.asdict(w) for w in state.writes if platform in (None, w.platform)]
        return JSONResponse(rows)

    async def requests_(_: Request) -> Response:
        return JSONResponse(state.requests)

    async def request_paths(_: Request) -> Response:
        return JSONResponse(paths)

    async def hosts(_: Request) -> Response:
        return JSONResponse(state.hosts)

    async def add_post(request: Request) -> Response:
        body = await request.json()
        try:
            thread = Thread(
                key=str(body["key"]),
                title=str(body.get("title", "")),
                body=str(body.get("body", "")),
                author=str(body.get("author", "someone")),
                tags=[str(t) for t in body.get("tags", [])],
                likes=int(body.get("likes", 0)),
                hours_ago=float(body.get("hours_ago", 1)),
                draft=bool(body.get("draft")),
                comments=[
                    Node(
                        str(c["key"]),
                        str(c["author"]),
                        str(c["body"]),
                        int(c.get("likes", 0)),
                        minutes=int(c.get("minutes", 0)),  # after the thread started
                        deleted=bool(c.get("deleted")),  # Bluesky: hidden by the thread's author
                    )
                    for c in body.get("comments", [])
                ],
            )
        except (KeyError, TypeError, ValueError) as exc:
            return JSONResponse({"error": f"bad thread: {exc}"}, status_code=400)
        add_thread(thread)
        for emulator in emulators.values():
            emulator.reset()
        ids = {name: e.ids().get(thread.key) for name, e in emulators.items()}
        return JSONResponse({"ok": True, "ids": ids})

    async def add_inbox(request: Request) -> Response:
        body = await request.json()
        try:
            summons, noise = int(body.get("summons", 100)), int(body.get("noise", 0))
            noise_last, hours_ago = bool(body.get("noise_last")), float(body.get("hours_ago", 0))
        except (TypeError, ValueError) as exc:
            return JSONResponse({"error": f"bad inbox flood: {exc}"}, status_code=400)
        if not (0 <= summons <= 2000 and 0 <= noise <= 2000):
            return JSONResponse({"error": "summons and noise: 0-2000 each"}, status_code=400)
        flood.add_flood(summons, noise, noise_last=noise_last, hours_ago=hours_ago)
        for emulator in emulators.values():
            emulator.reset()
        ids = {name: e.ids().get(flood.FLOOD_KEY) for name, e in emulators.items()}
        texts = [flood.summons_text(i) for i in range(summons)]
        return JSONResponse({"ok": True, "ids": ids, "summons": texts})

    async def reset(_: Request) -> Response:
        # Only emulators that served a request since the last reset can have changed
        # (with those sharing state with them): re-seeding the rest would be wasted time.
        touched = set(state.requests)
        state.clear()
        paths.clear()
        every = clear_extra()  # added threads (a flood's too) live in every emulator
        flood.clear()
        for emulator in emulators.values():
            if every:
                emulator.reset()
                continue
            group = {emulator.platform, *getattr(emulator, "fault_scope", ())}
            if group & touched or any(
                emulator.platform in getattr(other, "fault_scope", ()) and other.platform in touched
                for other in emulators.values()
            ):
                emulator.reset()
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/_sandbox/health", health),
            Route("/_sandbox/ids/{platform}", ids),
            Route("/_sandbox/env/{platform}", env),
            Route("/_sandbox/faults", faults, methods=["POST"]),
            Route("/_sandbox/faults", clear_faults, methods=["DELETE"]),
            Route("/_sandbox/writes", writes),
            Route("/_sandbox/requests", requests_),
            Route("/_sandbox/requests/paths", request_paths),
            Route("/_sandbox/reset", reset, methods=["POST"]),
            Route("/_sandbox/posts", add_post, methods=["POST"]),
            Route("/_sandbox/inbox", add_inbox, methods=["POST"]),
            Route("/_sandbox/hosts", hosts),
        ]
    )


def _fault_response(emulator: Emulator, fault: Fault) -> Response:
    """The platform's error for ``fault.status``; with ``fault.body``, that body instead of
    the platform's JSON, keeping the platform's headers (Retry-After, rate windows)."""
    response = emulator.error_response(fault.status, fault.retry_after)
    if fault.retry_after is not None and fault.status >= 500:  # how long it is down
        response.headers.setdefault("Retry-After", str(fault.retry_after))
    if fault.body is None:
        return response
    # raw_headers, not .headers: that view caches the list init_headers replaces, and
    # headers stamped when the response is sent (X's reset) would go to the old one.
    keep = {
        k.decode("latin-1"): v.decode("latin-1")
        for k, v in response.raw_headers
        if k.lower() not in (b"content-length", b"content-type")
    }
    # Same response object: headers stamped when it is sent (X's reset) still are.
    response.body = fault.body.encode()
    response.media_type = fault.content_type
    response.init_headers(keep)
    return response


class SandboxApp:
    """Routes by Host first (twikit keeps x.com as Host), then by path prefix."""

    def __init__(self, state: SandboxState | None = None) -> None:
        self.state = state or SandboxState()
        self.emulators = make_emulators(self.state)
        by_name = {e.platform: e for e in self.emulators}
        self.paths: dict[str, int] = {}  # "platform METHOD path" -> requests served
        self.control = _control(self.state, by_name, self.paths)
        self.apps: dict[str, ASGIApp] = {e.platform: e.app() for e in self.emulators}

    def route(self, scope: Scope) -> Emulator | None:
        host = ""
        for name, value in scope.get("headers", []):
            if name == b"host":
                host = value.decode("latin-1").split(":")[0].lower()
                break
        for emulator in self.emulators:
            if host in emulator.hosts:
                return emulator
        path: str = scope.get("path", "")
        # The longest prefix wins: Algolia's /api/v1/ is not Forem's /api/.
        matches = [(len(p), e) for e in self.emulators for p in e.prefixes if path.startswith(p)]
        return max(matches, key=lambda m: m[0])[1] if matches else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.control(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"host":
                host = value.decode("latin-1").lower()
                self.state.hosts[host] = self.state.hosts.get(host, 0) + 1
                break
        if scope["path"].startswith("/_sandbox/"):
            await self.control(scope, receive, send)
            return
        emulator = self.route(scope)
        if emulator is None:
            await JSONResponse({"error": "no emulator serves this path"}, status_code=404)(
                scope, receive, send
            )
            return
        platform = emulator.platform
        self.state.requests[platform] = self.state.requests.get(platform, 0) + 1
        self.state.arrived += 1
        scope["sandbox.arrival"] = self.state.arrived
        key = f"{platform} {scope['method']} {scope['path']}"
        self.paths[key] = self.paths.get(key, 0) + 1
        # An emulator may obey faults aimed at a sibling (twikit's web API at "twitter"), so a
        # fault meant for the platform hits whichever of its APIs the client tries.
        scope_names: tuple[str, ...] = getattr(emulator, "fault_scope", (platform,))
        latency = max(self.state.latency_ms(name) for name in scope_names)
        if latency:
            await anyio.sleep(latency / 1000)
        fault = None
        for name in scope_names:
            fault = self.state.take_fault(name, scope["path"], scope["method"])
            if fault is not None:
                break
        if fault is None:
            await self.apps[platform](scope, receive, send)
        elif fault.kind == "status":
            await _fault_response(emulator, fault)(scope, receive, send)
        elif fault.kind == "hang":
            await anyio.sleep(fault.seconds)
            await self.apps[platform](scope, receive, send)
        elif fault.kind == "hang_after":
            # The platform does the work, but its answer never arrives in time.
            await self.apps[platform](scope, receive, _swallow)
            await anyio.sleep(fault.seconds)
            await JSONResponse({"error": "late"}, status_code=504)(scope, receive, send)
        elif fault.kind == "apply_then_cut":
            # The answer starts (status, headers, half its body), then the connection drops.
            await self.apps[platform](scope, receive, _cut(receive, send))
        elif fault.kind in ("apply_then_status", "apply_then_drop"):
            # The platform applies the write; its answer is lost on the way back: a proxy
            # answers a 5xx instead, or the connection drops without any answer.
            await self.apps[platform](scope, receive, _swallow)
            if fault.kind == "apply_then_status":
                await _fault_response(emulator, fault)(scope, receive, send)
            else:
                await _drop(receive, send)
        elif fault.kind == "headers":
            await self.apps[platform](scope, receive, _with_headers(send, fault.headers))
        elif fault.kind == "slow_write":
            # Real servers finish what they received: read the request now, apply it after
            # the delay even if the client has given up, then answer (maybe to nobody). One
            # cut off before its whole body came is no request: nothing is applied. A held
            # one is counted apart ("... held"), so a test can tell it will land.
            body = await _read_body(receive)
            if body is None:
                return
            self.paths[f"{key} held"] = self.paths.get(f"{key} held", 0) + 1
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if sent:
                    return {"type": "http.disconnect"}
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            with anyio.CancelScope(shield=True):
                await anyio.sleep(fault.seconds)
                try:
                    await self.apps[platform](scope, replay, send)
                except OSError:  # the client is gone; the work is done all the same
                    log.info("slow write applied after its client left")
        else:
            await JSONResponse({"error": f"unknown fault kind {fault.kind}"}, status_code=500)(
                scope, receive, send
            )


async def _swallow(_message: Message) -> None:
    """An emulator's answer sent nowhere (the fault answers instead)."""


def _with_headers(send: Send, headers: dict[str, str]) -> Send:
    """``send`` with ``headers`` set on the answer (an empty value removes the header)."""
    names = {name.lower().encode("latin-1") for name in headers}

    async def patched(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
            added = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items() if v]
            message = {**message, "headers": kept + added}
        await send(message)

    return patched


def _cut(receive: Receive, send: Send) -> Send:
    """``send`` that passes the answer's start and half its body, then drops the connection."""
    cut = False

    async def patched(message: Message) -> None:
        nonlocal cut
        if cut:
            return
        if message["type"] == "http.response.body":
            body = message.get("body", b"")
            await send({**message, "body": body[: len(body) // 2], "more_body": True})
            cut = True
            await _drop(receive, send)
            return
        await send(message)

    return patched


async def _drop(receive: Receive, send: Send) -> None:
    """Close the client's connection without an answer. uvicorn gives the app no socket,
    but its ``send`` is a method of the request cycle that holds the transport."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is None:  # in-process (httpx's ASGITransport): no socket to close
        raise ConnectionResetError("the sandbox dropped the connection")
    transport.close()
    with anyio.move_on_after(5):  # uvicorn sees the close; then the app may return unanswered
        while (await receive())["type"] != "http.disconnect":
            pass


async def _read_body(receive: Receive) -> bytes | None:
    """The request's whole body; None when the client left before it all came."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
