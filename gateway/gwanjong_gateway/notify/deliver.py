"""Sending one message to each channel through Apprise, off the event loop: each try
bounded in time (a channel that hangs is abandoned, never waited on), retried with
backoff, then given up with a line in the log and the record. Apprise's own log is kept
quiet: its lines may name a URL with its secrets; ours show scheme and host only."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.to_thread

from gwanjong_gateway.extras import MissingExtra, missing_message
from gwanjong_gateway.notify.events import Message
from gwanjong_gateway.notify.redact import shown

log = logging.getLogger(__name__)

#: (url, title, body) -> sent; runs in a worker thread
Send = Callable[[str, str, str], bool]


class Refused(Exception):
    """Apprise did not take the URL (unknown scheme, bad form)."""


def apprise_send(url: str, title: str, body: str) -> bool:
    try:
        import apprise
    except ImportError:
        raise MissingExtra(missing_message("notify")) from None
    logging.getLogger("apprise").setLevel(logging.CRITICAL)  # it may log a URL's secrets
    sender = apprise.Apprise()
    if not sender.add(url):  # pyright: ignore[reportUnknownMemberType]
        raise Refused
    return bool(sender.notify(body=body, title=title))  # pyright: ignore[reportUnknownMemberType]


@dataclass(frozen=True)
class Retry:
    #: the pauses between tries (its length + 1 tries in all)
    backoff_s: Sequence[float] = (5.0, 30.0)
    #: the longest one try may take
    try_s: float = 20.0
    #: how a pause is waited (tests: a fake clock's)
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep

    @property
    def longest_s(self) -> float:
        """How long a delivery can last: every try and every pause."""
        return self.try_s * (len(self.backoff_s) + 1) + sum(self.backoff_s)


async def deliver_one(
    url: str, message: Message, send: Send, retry: Retry, missed: dict[str, str]
) -> None:
    """Send to one channel. While it is known unsent (between tries, and once given up),
    ``missed[url]`` says why (scheme+host, no secret)."""
    why = ""
    for attempt, pause in enumerate([*retry.backoff_s, None], start=1):
        missed.pop(url, None)  # a try under way may arrive
        try:
            with anyio.fail_after(retry.try_s):
                ok = await anyio.to_thread.run_sync(
                    send, url, message.title, message.body, abandon_on_cancel=True
                )
            if ok:
                return
            why = "the channel refused it"
        except TimeoutError:
            why = f"no answer within {retry.try_s:g} s"
        except Refused:
            why = "Apprise does not know this URL (check its scheme)"
            break  # no try will change that
        except MissingExtra as exc:
            why = str(exc)
            break
        except Exception as exc:  # a plugin's error; its text may name the URL: type only
            why = f"failed ({type(exc).__name__})"
        if pause is not None:
            missed[url] = why
            log.info("notify: %s: try %d %s; again in %g s", shown(url), attempt, why, pause)
            await retry.sleep(pause)
    missed[url] = line = f"{shown(url)}: gave up: {why}"
    log.warning("notify: %s", line)


async def deliver(
    messages: Mapping[str, Message], send: Send, retry: Retry, missed: dict[str, str]
) -> None:
    """Every channel at once, each its message (``missed``: see `deliver_one`)."""
    async with anyio.create_task_group() as tg:
        for url, message in messages.items():
            tg.start_soon(deliver_one, url, message, send, retry, missed)
