"""Bluesky payload shapes: profile views, post views with ``$type`` on every union, thread nodes."""

from __future__ import annotations

import json
from typing import Any

from gwanjong_sandbox.bluesky.model import (
    PROFILE,
    Account,
    StoredPost,
    cid_for,
)
from gwanjong_sandbox.bluesky.state import BlueskyState


class BlueskyWire(BlueskyState):
    """Renders stored posts as the AppView does (payloads/bluesky)."""

    # -- views ----------------------------------------------------------------------

    def _profile_basic(self, did: str, viewer: str | None) -> dict[str, Any]:
        account = self.accounts[did]
        view: dict[str, Any] = {
            "did": did,
            "handle": account.handle,
            "displayName": account.display_name,
            "avatar": f"https://cdn.bsky.app/img/avatar/plain/{did}/{cid_for(did)}@jpeg",
            "labels": self._self_labels(account),
            "createdAt": account.created_at,
        }
        if viewer is not None:
            view["viewer"] = {"muted": False, "blockedBy": self._blocks(did, viewer)}
        return view

    def _blocks(self, did: str, viewer: str | None) -> bool:
        """Whether the account ``did`` blocks ``viewer`` (only one blocks us here)."""
        return self.accounts[did].blocks_me and viewer == self.me.did

    def _self_labels(self, account: Account) -> list[dict[str, Any]]:
        """The profile record's self-labels as the AppView shows them on a profile: each
        with our own DID as its source and the record as its subject (payloads/bluesky)."""
        uri = f"at://{account.did}/{PROFILE}/self"
        cid = cid_for(json.dumps(account.profile, sort_keys=True))
        when = str((account.profile or {}).get("createdAt") or account.created_at)
        return [
            {"src": account.did, "uri": uri, "cid": cid, "val": val, "cts": when}
            for val in account.self_labels()
        ]

    def _reply_allowed(self, root: str, did: str) -> bool:
        gate = self.gates.get(root)
        if gate is None or "allow" not in gate:
            return True
        root_post = self.posts.get(root)
        if root_post is None or root_post.author == did:
            return True
        for rule in gate["allow"]:
            kind = rule.get("$type", "")
            if kind.endswith("#mentionRule") and any(
                f["did"] == did
                for facet in root_post.record.get("facets", [])
                for f in facet["features"]
                if f.get("$type") == "app.bsky.richtext.facet#mention"
            ):
                return True
            if kind.endswith("#followingRule") and did in self.accounts[root_post.author].follows:
                return True
            if kind.endswith("#followerRule") and root_post.author in self.accounts[did].follows:
                return True
        return False

    def _gate_view(self, root: str) -> dict[str, Any] | None:
        gate = self.gates.get(root)
        if gate is None:
            return None
        did = root.split("/")[2]
        uri = f"at://{did}/app.bsky.feed.threadgate/{root.rsplit('/', 1)[1]}"
        return {"uri": uri, "cid": cid_for(uri + json.dumps(gate)), "record": gate, "lists": []}

    def _indexed(self, post: StoredPost) -> bool:
        """False while the AppView has not indexed a new post yet (the ``lag`` fault): every
        AppView read leaves it out; the PDS's writes know it at once."""
        return self.state.visible("bluesky", post.uri)

    def _post_view(self, post: StoredPost, viewer: str | None) -> dict[str, Any]:
        root = post.root or post.uri
        view: dict[str, Any] = {
            "uri": post.uri,
            "cid": post.cid,
            "author": self._profile_basic(post.author, viewer),
            "record": post.record,
            "replyCount": sum(1 for c in post.children if not self.posts[c].violates_gate),
            "repostCount": post.reposts,
            "likeCount": post.likes,
            "quoteCount": 0,
            "indexedAt": post.indexed_at,
            "labels": [],
        }
        if viewer is not None:
            state: dict[str, Any] = {"threadMuted": False, "embeddingDisabled": False}
            like = self.likes.get((viewer, post.uri))
            if like:
                state["like"] = like
            if root in self.gates:
                state["replyDisabled"] = not self._reply_allowed(root, viewer)
            view["viewer"] = state
        if post.root is None and post.uri in self.gates:
            view["threadgate"] = self._gate_view(post.uri)
        return view

    def _node(self, post: StoredPost, viewer: str | None, depth: int) -> dict[str, Any]:
        if post.gone == "notfound":
            return {"$type": "app.bsky.feed.defs#notFoundPost", "uri": post.uri, "notFound": True}
        if post.gone == "blocked":
            return {
                "$type": "app.bsky.feed.defs#blockedPost",
                "uri": post.uri,
                "blocked": True,
                "author": {"did": post.author, "viewer": {"blockedBy": True}},
            }
        node: dict[str, Any] = {
            "$type": "app.bsky.feed.defs#threadViewPost",
            "post": self._post_view(post, viewer),
        }
        if depth > 0:
            node["replies"] = [
                self._node(self.posts[c], viewer, depth - 1)
                for c in post.children
                if not self.posts[c].violates_gate and self._indexed(self.posts[c])
            ]
        node["threadContext"] = {}
        return node

    def _parents(self, post: StoredPost, viewer: str | None, height: int) -> dict[str, Any] | None:
        if height <= 0 or post.parent is None:
            return None
        parent = self.posts.get(post.parent)
        if parent is None:
            return {
                "$type": "app.bsky.feed.defs#notFoundPost",
                "uri": post.parent,
                "notFound": True,
            }
        node = self._node(parent, viewer, 0)
        node.pop("replies", None)
        above = self._parents(parent, viewer, height - 1)
        if above is not None and node["$type"].endswith("threadViewPost"):
            node["parent"] = above
        return node
