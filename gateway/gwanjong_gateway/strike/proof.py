"""Whether a hand-off is on the platform: the proof that closes it without a person.

The model's word is never proof; reading the platform is: a comment by our account on the
post holding the start of the handed-off text (a new post: ours, with that text or title).
A link the model gives must be bounded http(s) pointing at it, else the claim is unproven.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from gwanjong_gateway.platforms.client import PlatformClient
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.rules.ledger import Strike, StrikeAction
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.untrusted import normalise

#: the longest link a hand-off keeps (a post's URL is far shorter)
MAX_URL = 2048


def web_link(url: str) -> str:
    """``url`` when it is an http(s) link with a host, at most `MAX_URL` characters and
    without a space or control character; "" otherwise (it is never stored or shown)."""
    url = url.strip()
    if len(url) > MAX_URL or any(c.isspace() or not c.isprintable() for c in url):
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return url if parts.scheme in ("http", "https") and parts.hostname else ""


@dataclass(frozen=True)
class Proof:
    """Found: ``url`` (what the record keeps) and ``id``; not found: ``why``."""

    url: str = ""
    id: str = ""
    why: str = ""

    @property
    def found(self) -> bool:
        return not self.why


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def _segments(url: str) -> list[str]:
    parts = urlsplit(url)
    return [s for s in (*parts.path.split("/"), *parts.fragment.split("-")) if s]


def points_at(link: str, post_url: str, item_id: str) -> bool:
    """Whether ``link`` is the post at ``post_url`` or the item ``item_id`` on its site
    (an id such as an AT URI is matched by its last part, as its web link shows it)."""
    if not post_url or _host(link) != _host(post_url):
        return False
    if urlsplit(link).path.rstrip("/") == urlsplit(post_url).path.rstrip("/"):
        return True
    last = item_id.rstrip("/").rsplit("/", 1)[-1]
    return bool(last) and last in _segments(link)


async def prove(upstreams: Upstreams, row: Strike, link: str) -> Proof:
    """Read the platform for hand-off ``row``; ``link``: the checked link the model gave
    ("" for none)."""
    if row.action not in (StrikeAction.COMMENT, StrikeAction.POST):
        return Proof(why=f"a {row.action} cannot be read back from {row.platform}")
    if not normalise(row.content):
        return Proof(why="the hand-off has no text to look for")
    client = PlatformClient(upstreams, row.platform)
    try:
        account = (await client.capabilities()).account
        if not account:
            return Proof(why=f"{row.platform} does not say which account is ours")
        found = await client.find_written(row, account)
    except PlatformError as exc:
        return Proof(why=f"{row.platform} could not be read ({exc.kind})")
    comment = row.action is StrikeAction.COMMENT
    if found is None:
        where = "is on that post" if comment else "was found"
        return Proof(why=f"no {row.action} by {account} with this text {where}")
    url = row.target_url if comment else found.url  # a comment's link is its post's
    if link and not points_at(link, url, found.id):
        whose = "comment's or its post's" if comment else "post's"
        return Proof(why=f"the link given is not that {whose}")
    return Proof(url=link or url, id=found.id)
