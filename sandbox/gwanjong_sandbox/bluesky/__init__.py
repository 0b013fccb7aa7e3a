"""Bluesky emulator: a PDS (bsky.social) with the AppView reads it proxies, over XRPC.

What ``atproto``'s ``AsyncClient`` calls, in the shapes of platform-wire.md §2.3 and the
recorded payloads (payloads/bluesky): sessions with decodable JWTs that carry a real
``exp`` and a didDoc pointing back at the sandbox, post views with ``$type`` on every union
member, thread nodes with ``threadContext``, ``RateLimit-*`` headers on every answer and
errors as ``{"error": Name, "message": ...}`` with the PDS's status codes.

How the shared corpus becomes Bluesky:

* A thread is a post whose text is ``title + "\\n\\n" + body``. Text over 300 graphemes
  (which the real PDS refuses) is posted the way people do it: as a self-thread, each
  part a reply by the author to the previous part.
* ``{me}`` becomes ``@gwanjong.bsky.social`` with a mention facet carrying our DID at its
  UTF-8 byte offsets.
* A deleted *thread* is gone: every read of it is ``400 NotFound``.
* A deleted *comment* keeps its replies, which a real deletion on Bluesky does not do (the
  AppView drops a deleted reply together with everything under it). The nearest real
  thing that keeps the place and the replies is a reply the thread's author has hidden:
  it is listed in the root's threadgate ``hiddenReplies`` and getPostThread still returns
  it in place, with its replies.

Emulator-only threads (not in corpus.py): ``gated`` mentions us but its threadgate lets
only people the author follows reply (so ``viewer.replyDisabled`` is true for us), and
``odd-nodes`` has a ``#blockedPost`` (an author who blocks us) and a ``#notFoundPost``
among its replies; ``bsky-quotes-me`` quotes our own ``my-post`` (the inbox's ``quote``,
see bluesky/inbox.py, which also serves ``app.bsky.notification.listNotifications``).

Debug routes under the prefix, for tests: ``GET /xrpc/sandbox.debug.getCounts`` (requests
served per NSID), ``POST /xrpc/sandbox.debug.configure`` (``accessTtlS``),
``POST /xrpc/sandbox.debug.revokeSessions``.

Modules: ``model`` (accounts, limits, ids, stored posts), ``state`` (the seed), ``wire``
(payload shapes), ``http`` (limits, errors, sessions check), ``sessions``, ``reads``,
``profiles`` (the profile record and its self-labels), ``writes``, ``inbox`` (handlers by
concern) and ``routes`` (the XRPC route table).

Our account (``ME_HANDLE``) carries the ``bot`` self-label on its profile record, as
Bluesky asks of automated accounts; ``PERSON_HANDLE`` (``PERSON_PASSWORD``) is a person's
account without it. putRecord on the profile adds or removes it, as the app does.
"""

from gwanjong_sandbox.bluesky.model import (
    APP_PASSWORD,
    ME_HANDLE,
    ME_NAME,
    PERSON_HANDLE,
    PERSON_PASSWORD,
    WANDERER_HANDLE,
    WANDERER_PASSWORD,
    WANDERER_PDS,
    cid_for,
    did_for,
    handle_for,
    split_text,
)
from gwanjong_sandbox.bluesky.routes import BlueskyEmulator

__all__ = [
    "APP_PASSWORD",
    "ME_HANDLE",
    "ME_NAME",
    "PERSON_HANDLE",
    "PERSON_PASSWORD",
    "WANDERER_HANDLE",
    "WANDERER_PASSWORD",
    "WANDERER_PDS",
    "BlueskyEmulator",
    "cid_for",
    "did_for",
    "handle_for",
    "split_text",
]
