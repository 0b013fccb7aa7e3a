"""Bluesky writes: createRecord for posts (length, reply gates, facets) and likes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.http import BlueskyHttp
from gwanjong_sandbox.bluesky.model import (
    MAX_GRAPHEMES,
    MAX_TEXT_BYTES,
    Account,
    StoredPost,
    cid_for,
    graphemes,
    iso,
    tid,
)


class BlueskyWrites(BlueskyHttp):
    """Write routes."""

    # writes

    async def create_record(self, request: Request) -> Response:
        own = await self._own_repo(request)
        if isinstance(own, Response):
            return own
        body, account = own
        collection = body.get("collection")
        record = body.get("record")
        if not isinstance(record, dict) or record.get("$type") != collection:
            return self._error(
                400,
                "InvalidRequest",
                f"Invalid $type: expected {collection}, got {record and record.get('$type')}",
            )
        now = datetime.now(UTC)
        if collection == "app.bsky.feed.post":
            return self._create_post(account, record, now)
        if collection == "app.bsky.feed.like":
            return self._create_like(account, record, now)
        return self._error(400, "InvalidRequest", f"Unsupported collection: {collection}")

    def _invalid(self, collection: str, problem: str) -> Response:
        return self._error(400, "InvalidRequest", f"Invalid {collection} record: {problem}")

    def _create_post(self, account: Account, record: dict[str, Any], now: datetime) -> Response:
        text = record.get("text")
        if not isinstance(text, str) or not isinstance(record.get("createdAt"), str):
            return self._invalid("app.bsky.feed.post", 'Record must have the property "text"')
        if graphemes(text) > MAX_GRAPHEMES:
            return self._invalid(
                "app.bsky.feed.post",
                f"Record/text must not be longer than {MAX_GRAPHEMES} graphemes",
            )
        if len(text.encode()) > MAX_TEXT_BYTES:
            return self._invalid(
                "app.bsky.feed.post",
                f"Record/text must not be longer than {MAX_TEXT_BYTES} characters",
            )
        if len(record.get("langs") or []) > 3:
            return self._invalid(
                "app.bsky.feed.post", "Record/langs must not have more than 3 elements"
            )
        tags = record.get("tags") or []
        if len(tags) > 8 or any(graphemes(str(t)) > 64 for t in tags):
            return self._invalid(
                "app.bsky.feed.post", "Record/tags must not have more than 8 elements"
            )
        for i, tag in enumerate(tags):  # the lexicon's maxLength: UTF-8 bytes
            if len(str(tag).encode()) > 640:
                problem = f"Record/tags/{i} must not be longer than 640 characters"
                return self._invalid("app.bsky.feed.post", problem)
        size = len(text.encode())
        for facet in record.get("facets") or []:
            index = facet.get("index") or {}
            start, end = index.get("byteStart"), index.get("byteEnd")
            if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= size):
                return self._invalid(
                    "app.bsky.feed.post", "Record/facets/index must be a byte slice of text"
                )
        reply = record.get("reply")
        root_uri = parent_uri = None
        if reply is not None:
            try:
                root_uri, parent_uri = str(reply["root"]["uri"]), str(reply["parent"]["uri"])
                if not (reply["root"]["cid"] and reply["parent"]["cid"]):
                    raise KeyError("cid")
            except (KeyError, TypeError):
                return self._invalid(
                    "app.bsky.feed.post", 'Record/reply must have "root" and "parent" strong refs'
                )
        uri = self._new_uri(account.did, "app.bsky.feed.post", now)
        stored_record = {k: v for k, v in record.items()}
        post = StoredPost(
            uri,
            cid_for(uri + json.dumps(record, sort_keys=True)),
            account.did,
            stored_record,
            iso(now),
            root=root_uri,
            parent=parent_uri,
        )
        parent = self.posts.get(parent_uri) if parent_uri else None
        if parent is not None and root_uri is not None:
            post.violates_gate = not self._reply_allowed(root_uri, account.did)
            parent.children.append(uri)
        self.posts[uri] = post
        if reply is None:
            self.state.record_write(
                "bluesky",
                "write_post",
                None,
                text=text,
                facets=record.get("facets") or [],
                langs=record.get("langs"),
                tags=tags,
                uri=uri,
                record=record,
            )
        else:
            self.state.record_write(
                "bluesky",
                "write_comment",
                parent_uri,
                text=text,
                facets=record.get("facets") or [],
                root=reply["root"],
                parent=reply["parent"],
                uri=uri,
                record=record,
            )
        return self._created(uri, post.cid, now)

    def _create_like(self, account: Account, record: dict[str, Any], now: datetime) -> Response:
        subject = record.get("subject")
        if not isinstance(subject, dict) or not subject.get("uri") or not subject.get("cid"):
            return self._invalid("app.bsky.feed.like", 'Record must have the property "subject"')
        uri = self._new_uri(account.did, "app.bsky.feed.like", now)
        cid = cid_for(uri + json.dumps(record, sort_keys=True))
        target = self._find(str(subject["uri"]))
        if target is not None and (account.did, target.uri) not in self.likes:
            target.likes += 1
            self.likes[(account.did, target.uri)] = uri
        self.state.record_write(
            "bluesky", "upvote", str(subject["uri"]), subject=subject, uri=uri, record=record
        )
        return self._created(uri, cid, now)

    def _created(self, uri: str, cid: str, now: datetime) -> Response:
        rev = tid(int(now.timestamp() * 1_000_000), next(self._clock))
        return self._ok(
            {
                "uri": uri,
                "cid": cid,
                "commit": {"cid": cid_for(f"commit:{uri}"), "rev": rev},
                "validationStatus": "valid",
            }
        )
