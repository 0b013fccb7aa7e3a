"""Writing to Bluesky: post, reply and like records, with facets and langs.

The target views come from the adapter's short-lived cache (see ``target_cache``): the
validate that ran just before already read them. Our own write drops them from it.
"""

from __future__ import annotations

import re

from atproto_client import models

from gwanjong_bluesky.failures import ACCOUNT_HINT
from gwanjong_bluesky.label import BotLabel
from gwanjong_bluesky.posts import authority, dig, post_url
from gwanjong_bluesky.rules import COMMENT_RULE, GATED_RULE, reply_shut, strangers, summons
from gwanjong_bluesky.session import BlueskyClient
from gwanjong_bluesky.settings import Settings
from gwanjong_bluesky.threads import View, missing, target_view, target_views
from gwanjong_shared.contract import Action, TagRules, errors
from gwanjong_shared.contract.models import PostResult
from gwanjong_shared.contract.text import graphemes
from gwanjong_shared.kit.once import before_sending
from gwanjong_shared.kit.target_cache import TargetCache

PLATFORM = "bluesky"
MAX_TAGS = 8
MAX_TAG_GRAPHEMES = 64
MAX_TAG_BYTES = 640  # ... and maxLength, in UTF-8 bytes
#: a post record's `tags` (the lexicon's limits), as `validate` checks them
TAGS = TagRules(
    max=MAX_TAGS,
    max_length=MAX_TAG_GRAPHEMES,
    unit="graphemes",
    pattern=r"[^#\s]\S*",
    hint="words without spaces or a leading #",
)


def compose(title: str, body: str) -> str:
    """Bluesky posts have no title: a given title becomes the first paragraph of the text."""
    title = title.strip()
    return f"{title}\n\n{body}" if title else body


def guess_langs(text: str) -> list[str]:
    """The record's ``langs`` (feeds filter on it): the scripts the text is written in."""
    langs = []
    if re.search(r"[A-Za-z]", text):
        langs.append("en")
    if re.search(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]", text):
        langs.append("ko")
    if re.search(r"[\u3040-\u30ff]", text):
        langs.append("ja")
    return langs[:3] or ["en"]


def fixed_langs(settings: Settings) -> list[str]:
    """BLUESKY_LANGS, as every write carries it (capabilities names it: a person sees it)."""
    return [lang.strip() for lang in settings.langs.split(",") if lang.strip()][:3]


class Writer:
    def __init__(self, client: BlueskyClient, targets: TargetCache[View], label: BotLabel) -> None:
        self.client = client
        self.targets = targets
        self.label = label

    async def refuse_unlabelled(self, action: Action) -> None:
        """Every write first: our account must carry the `bot` self-label (label.py)."""
        async with before_sending("Bluesky", action, "our profile's `bot` self-label"):
            problem = await self.label.problem()
        if problem is not None:
            raise errors.not_supported(f"{action} is not allowed: {problem}")

    def _langs(self, text: str) -> list[str]:
        return fixed_langs(self.client.settings) or guess_langs(text)

    async def facets(self, text: str) -> list[models.AppBskyRichtextFacet.Main] | None:
        """Links, #tags and @mentions at UTF-8 byte offsets; mentions carry the resolved DID.
        All read from the text a person approved, which shows each (and lists its links,
        bare domains too), so nothing else about them is shown."""
        facets = await self.client.call(
            "finding links and mentions", lambda c: c.detect_facets(text), item="such account"
        )
        return facets or None

    def _result(self, action: Action, uri: str, did: str, handle: str) -> PostResult:
        url = post_url({"uri": uri, "author": {"handle": handle, "did": did}})
        return PostResult(ok=True, platform=PLATFORM, action=action, id=uri, url=url)

    async def post(self, title: str, body: str, tags: list[str]) -> PostResult:
        text = compose(title, body)
        clean = [t.strip().lstrip("#") for t in tags if t.strip().lstrip("#")]
        if len(clean) > MAX_TAGS or any(
            graphemes(t) > MAX_TAG_GRAPHEMES or len(t.encode()) > MAX_TAG_BYTES for t in clean
        ):
            raise errors.invalid_input(
                f"Bluesky takes at most {MAX_TAGS} tags of up to {MAX_TAG_GRAPHEMES} characters "
                f"and {MAX_TAG_BYTES} bytes in UTF-8; got {tags!r}. Fix the tags and retry."
            )
        if not self.client.is_configured():
            raise errors.auth(
                f"No Bluesky account is set, so nothing can be posted. {ACCOUNT_HINT}"
            )
        did, handle = await self.client.me()
        await self.refuse_unlabelled("write_post")
        facets = await self.facets(text)
        if why := strangers(text, facets, did):
            raise errors.invalid_input(why)
        record = models.AppBskyFeedPost.Record(
            created_at=self.client.now(),
            text=text,
            facets=facets,
            langs=self._langs(text),
            tags=clean or None,
        )
        created = await self.client.call(
            "publishing", lambda c: c.app.bsky.feed.post.create(did, record), write=True
        )
        return self._result("write_post", created.uri, did, handle)

    async def comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        did, handle = await self.client.me()
        await self.refuse_unlabelled("write_comment")
        uri = await self.client.uri(post_id)
        parent_uri = await self.client.uri(parent_id, "parent_id") if parent_id else uri
        views = await target_views(self.client, self.targets, [uri, parent_uri])
        target, parent = views.get(uri), views.get(parent_uri)
        if target is None or parent is None:
            raise missing(uri if target is None else parent_uri, "get_comments")
        root = dig(target, "record", "reply", "root") or {
            "uri": target["uri"],
            "cid": target["cid"],
        }
        if parent_uri != uri:
            parent_root = dig(parent, "record", "reply", "root", "uri") or parent["uri"]
            if parent_root != root["uri"]:
                raise errors.invalid_input(
                    f"parent_id {parent_uri} is not in the thread of post_id {uri}. Use a comment "
                    "id from get_comments(post_id)."
                )
            replied_to = authority(str(dig(parent, "record", "reply", "parent", "uri") or ""))
            if not summons(parent, did, handle) and replied_to != did:
                raise errors.not_supported(
                    f"{COMMENT_RULE.reason} The comment {parent_uri} neither mentions "
                    f"@{handle} nor "
                    "replies to us, so a person must decide whether to answer it."
                )
        if reply_shut(parent, did):
            raise errors.not_supported(GATED_RULE.reason)
        facets = await self.facets(body)
        if why := strangers(body, facets, did, str(dig(parent, "author", "did") or "")):
            raise errors.invalid_input(why)
        reply = models.AppBskyFeedPost.ReplyRef(
            root=models.ComAtprotoRepoStrongRef.Main(uri=root["uri"], cid=root["cid"]),
            parent=models.ComAtprotoRepoStrongRef.Main(uri=parent["uri"], cid=parent["cid"]),
        )
        record = models.AppBskyFeedPost.Record(
            created_at=self.client.now(),
            text=body,
            facets=facets,
            langs=self._langs(body),
            reply=reply,
        )
        created = await self.client.call(
            "replying", lambda c: c.app.bsky.feed.post.create(did, record), write=True
        )
        self.targets.forget(uri, parent_uri)
        return self._result("write_comment", created.uri, did, handle)

    async def like(self, post_id: str) -> PostResult:
        did, _ = await self.client.me()
        await self.refuse_unlabelled("upvote")
        uri = await self.client.uri(post_id)
        view = await target_view(self.client, self.targets, uri)
        url = post_url(view)
        existing = dig(view, "viewer", "like")
        if existing:  # already liked: a second like record would only be noise
            return PostResult(
                ok=True, platform=PLATFORM, action="upvote", id=str(existing), url=url
            )
        record = models.AppBskyFeedLike.Record(
            created_at=self.client.now(),
            subject=models.ComAtprotoRepoStrongRef.Main(uri=view["uri"], cid=view["cid"]),
        )
        created = await self.client.call(
            "liking", lambda c: c.app.bsky.feed.like.create(did, record), write=True
        )
        self.targets.forget(uri)
        return PostResult(ok=True, platform=PLATFORM, action="upvote", id=created.uri, url=url)
