"""X's web client as the sandbox knows it: credentials, hosts, limits, the bootstrap page, errors."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from starlette.responses import JSONResponse

from gwanjong_sandbox.twitter.model import WEB_AUTH_TOKEN

# The public bearer token of X's web client (twikit.constants.TOKEN): the same for everyone.
WEB_BEARER = "AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA"
AUTH_TOKEN = WEB_AUTH_TOKEN  # what a saved cookies file holds
READER_EMAIL = "reader@example.com"
PASSWORD = "sandbox-twikit-password"
HOSTS = ("x.com", "www.x.com", "api.x.com", "twitter.com", "abs.twimg.com", "upload.x.com")
ONDEMAND = "5f2a9c1d"
PAGE_MODULES = 10  # conversation modules per TweetDetail page
LIMITS = {
    "SearchTimeline": 50,
    "TweetDetail": 150,
    "guide.json": 75,
    "CreateTweet": 50,
    "FavoriteTweet": 500,
}


def web_time(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%a %b %d %H:%M:%S +0000 %Y")


def _home_page() -> str:
    """A page with what ClientTransaction scrapes: the verification key, four loading-x-anim
    frames (no whitespace between tags: twikit walks ``.children`` by position) and the
    ``ondemand.s`` hash."""
    key = base64.b64encode(bytes((i * 37 + 11) % 256 for i in range(48))).decode()
    frames = []
    for f in range(4):
        rows = []
        for r in range(16):
            nums = [(f * 53 + r * 29 + k * 17) % 256 for k in range(11)]
            rows.append(" ".join(str(n) for n in nums))
        d = "M 10,30 C" + " C ".join(rows)
        frames.append(
            f'<svg id="loading-x-anim-{f}" width="0" height="0"><g><path d="M0 0"></path>'
            f'<path d="{d}"></path></g></svg>'
        )
    return (
        "<!DOCTYPE html><html><head>"
        f'<meta name="twitter-site-verification" content="{key}"/>'
        "<title>X</title></head><body>"
        + "".join(frames)
        + f'<script>window.__SCRIPTS__={{"ondemand.s":"{ONDEMAND}"}};</script>'
        "</body></html>"
    )


HOME_HTML = _home_page()
ONDEMAND_JS = "(()=>{var n=(a[2], 16),o=(b[12], 16),r=(c[7], 16),s=(d[31], 16);return n+o+r+s})();"
UI_METRICS_JS = 'function f() {return {"rf":{"a1":1},"s":"sandbox"};}'


def web_error(
    status: int, code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"code": code, "message": message}]}, status_code=status, headers=headers
    )
