"""Our account's `bot` self-label: Bluesky's disclosure for an automated account.

Bluesky discloses on the account, not in the text (so no footer): every write requires
the label. It is read from the profile record on our PDS (``app.bsky.actor.profile/self``,
``labels``: ``com.atproto.label.defs#selfLabels``), which the app's toggle writes and which,
unlike getProfile's AppView copy, shows a change at once. This server never sets it: the
profile is the person's.
"""

from __future__ import annotations

from collections.abc import Callable

from atproto_client import AsyncClient, models
from atproto_client.exceptions import BadRequestError

from gwanjong_bluesky.failures import xrpc_error
from gwanjong_bluesky.session import BlueskyClient

BOT = "bot"
#: how a person adds the label (social-app: Settings > Account > Automation label)
BOT_LABEL_HOWTO = (
    'In the Bluesky app: Settings > Account > Automation label, turn on "Show automation '
    'label" (it puts the `bot` self-label on the profile). gwanjong never changes your '
    "profile itself."
)
#: how long a label seen on the profile is trusted without reading it again
FRESH_S = 600.0


class BotLabel:
    """Whether our profile carries the `bot` self-label: read once and kept ``FRESH_S``
    (no request per write); a missing label is read again before anything is refused, so a
    person who just added it is not refused by a stale answer."""

    def __init__(self, client: BlueskyClient, clock: Callable[[], float]) -> None:
        self.client = client
        self.clock = clock
        self._seen_at: float | None = None  # when the label was last seen there

    async def problem(self) -> str | None:
        """Why our account may not write (no `bot` self-label), or None."""
        if self._seen_at is not None and self.clock() - self._seen_at < FRESH_S:
            return None
        self._seen_at = None
        if BOT not in await self.values():
            return (
                "Our Bluesky account does not carry the `bot` self-label, Bluesky's disclosure "
                "for automated accounts (no footer is added there), and this server writes "
                f"only from accounts that do. {BOT_LABEL_HOWTO}"
            )
        self._seen_at = self.clock()
        return None

    async def values(self) -> list[str]:
        """The self-label values on our profile record (none without a record)."""
        did, _ = await self.client.me()

        async def read(c: AsyncClient) -> models.AppBskyActorProfile.GetRecordResponse | None:
            try:
                return await c.app.bsky.actor.profile.get(did, "self")
            except BadRequestError as exc:
                if xrpc_error(exc)[1] == "RecordNotFound":  # an account that never made one
                    return None
                raise

        found = await self.client.call("reading our profile's self-labels", read)
        labels = found.value.labels if found is not None else None
        if not isinstance(labels, models.ComAtprotoLabelDefs.SelfLabels):
            return []
        return [label.val for label in labels.values]
