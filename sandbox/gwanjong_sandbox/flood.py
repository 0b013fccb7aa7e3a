"""An inbox flood for tests (`POST /_sandbox/inbox`): many summons mixed with noise.

Every emulator renders the flood thread like any added thread (so the summons are in each
platform's own inbox feed, in its own shapes and pages); the noise moments are also
rendered by the emulators whose inbox holds items that summon nobody: Reddit's private
messages, Bluesky's like, repost and follow notifications. Gone at the next reset.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from gwanjong_sandbox.corpus import ME, Node, Thread, add_thread

FLOOD_KEY = "inbox-flood"
#: when each noise item of the flood happened: emulators with inbox items that summon
#: nobody (Reddit's private messages, Bluesky's likes, reposts and follows) render one each
_NOISE: list[tuple[int, datetime]] = []


def summons_text(i: int) -> str:
    return f"Inbox summons #{i:03d}: could you take a look at this one?"


def noise_text(j: int) -> str:
    return f"Inbox noise #{j:03d}: nothing to answer here."


def add_flood(summons: int, noise: int, *, noise_last: bool = False, hours_ago: float = 0) -> None:
    """A thread of ours whose replies are ``summons`` summons on every platform (one in
    three answers one of our comments instead of the post: a comment reply, not a post
    reply), one event a minute in order, mixed with ``noise`` items that summon nobody: our
    own comments in the thread, and each platform's own kind (see ``flood_noise``).
    ``noise_last``: every noise item is newer than every summons."""
    order = [("s", i) for i in range(summons)]
    noise_events = [("n", j) for j in range(noise)]
    if noise_last:
        order += noise_events
    else:  # spread evenly among the summons
        for j, event in enumerate(noise_events):
            order.insert(min(len(order), (j * (summons + noise)) // max(noise, 1)), event)
    thread = Thread(
        FLOOD_KEY,
        "Ask me anything about MCP gateways",
        "Questions welcome.",
        ME,
        ["mcp"],
        1,
        hours_ago,
    )
    minute = 0
    for kind, n in order:
        minute += 1
        if kind == "n":
            thread.comments.append(Node(f"flood-n-{n}", ME, noise_text(n), 0, minute))
            _NOISE.append((n, thread.created + timedelta(minutes=minute, seconds=30)))
            continue
        asker = Node(f"flood-s-{n}", f"asker_{n % 17}", summons_text(n), 0, minute)
        if n % 3 == 2:
            ours = Node(f"flood-me-{n}", ME, f"A note of ours before #{n:03d}.", 0, minute)
            minute += 1
            asker.minutes = minute
            ours.children.append(asker)
            thread.comments.append(ours)
        else:
            thread.comments.append(asker)
    add_thread(thread)


def flood_noise() -> list[tuple[int, datetime]]:
    """(number, time) of each noise item of the flood, oldest first."""
    return list(_NOISE)


def clear() -> None:
    _NOISE.clear()
