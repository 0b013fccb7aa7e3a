"""Bluesky records on the PDS: getRecord and putRecord of app.bsky.actor.profile/self, and
listRecords of an account's posts.

A profile's self-labels live in that record (``labels``: ``#selfLabels`` with ``values``);
the app's Settings > Account > Automation label writes the ``bot`` value there with
putRecord, and getProfile shows it back (wire.py). The PDS lists a post as soon as it is
written: the AppView's ``lag`` is not its.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import Response

from gwanjong_sandbox.bluesky.http import BlueskyHttp
from gwanjong_sandbox.bluesky.model import POST, PROFILE, cid_for, tid


class BlueskyProfiles(BlueskyHttp):
    """Profile record routes."""

    def _profile_cid(self, record: object) -> str:
        return cid_for(json.dumps(record, sort_keys=True))

    async def get_record(self, request: Request) -> Response:
        query = request.query_params
        account = self._resolve(query.get("repo", ""))
        collection, rkey = query.get("collection", ""), query.get("rkey", "")
        if account is None:
            return self._error(400, "RepoNotFound", f"Could not find repo: {query.get('repo')}")
        uri = f"at://{account.did}/{collection}/{rkey}"
        if (collection, rkey) != (PROFILE, "self") or account.profile is None:
            return self._error(400, "RecordNotFound", f"Could not locate record: {uri}")
        record = account.profile
        return self._ok({"uri": uri, "cid": self._profile_cid(record), "value": record})

    async def list_records(self, request: Request) -> Response:
        """An account's posts, newest first (by record key), ``limit`` a page."""
        query = request.query_params
        account = self._resolve(query.get("repo", ""))
        limit = self._int(request, "limit", 50, 1, 100)
        if account is None or limit is None:
            return self._error(400, "InvalidRequest", "Invalid repo or limit")
        cursor = query.get("cursor") or "~"
        keyed = [
            (p.uri.rsplit("/", 1)[1], p)
            for p in self.posts.values()
            if p.author == account.did and p.gone != "notfound" and query.get("collection") == POST
        ]
        page = sorted((k, p) for k, p in keyed if k < cursor)[::-1][:limit]
        body: dict[str, object] = {
            "records": [{"uri": p.uri, "cid": p.cid, "value": p.record} for _, p in page]
        }
        if len(page) == limit:
            body["cursor"] = page[-1][0]
        return self._ok(body)

    async def put_record(self, request: Request) -> Response:
        own = await self._own_repo(request)
        if isinstance(own, Response):
            return own
        body, account = own
        record = body.get("record")
        if (body.get("collection"), body.get("rkey")) != (PROFILE, "self"):
            return self._error(400, "InvalidRequest", "Only the profile record is served here")
        if not isinstance(record, dict) or record.get("$type") != PROFILE:
            return self._error(400, "InvalidRequest", f"Invalid $type: expected {PROFILE}")
        swap = body.get("swapRecord")
        if swap is not None and swap != self._profile_cid(account.profile):
            return self._error(400, "InvalidSwap", "Record was at a different cid")
        account.profile = record
        uri, cid = f"at://{account.did}/{PROFILE}/self", self._profile_cid(record)
        rev = tid(int(datetime.now(UTC).timestamp() * 1_000_000), next(self._clock))
        return self._ok(
            {
                "uri": uri,
                "cid": cid,
                "commit": {"cid": cid_for(f"commit:{uri}:{rev}"), "rev": rev},
                "validationStatus": "valid",
            }
        )
