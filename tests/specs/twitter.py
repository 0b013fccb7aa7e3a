"""X/Twitter in the contract suite: tweepy alone, and twikit first with tweepy as fallback."""

import json
import tempfile
from pathlib import Path

from tests.platforms import PlatformSpec

# The sandbox's credentials (gwanjong_sandbox.twitter / .twikit).
BEARER = "sandbox-twitter-bearer"
API_KEY = "sandbox-twitter-api-key"
API_SECRET = "sandbox-twitter-api-secret"
ACCESS_TOKEN = "1790000000000000001-sandboxtwitteraccesstoken"
ACCESS_SECRET = "sandbox-twitter-access-secret"
WEB_AUTH_TOKEN = "sandbox-twikit-auth-token"

# A saved twikit session, as `client.save_cookies()` writes it.
COOKIES_FILE = Path(tempfile.mkdtemp(prefix="gwanjong-twikit-")) / "cookies.json"
COOKIES_FILE.write_text(json.dumps({"auth_token": WEB_AUTH_TOKEN, "ct0": "sandboxct0token"}))
TWIKIT = {"TWITTER_COOKIES_FILE": str(COOKIES_FILE)}
#: a test of both readers: tweepy alone, and twikit first
READERS = {"tweepy": {}, "twikit-first": TWIKIT}

SPEC = PlatformSpec(
    name="twitter",
    values=lambda url: {
        "API_BASE_URL": url,
        "BEARER_TOKEN": BEARER,
        "API_KEY": API_KEY,
        "API_SECRET": API_SECRET,
        "ACCESS_TOKEN": ACCESS_TOKEN,
        "ACCESS_SECRET": ACCESS_SECRET,
        "WRITE_INTERVAL_S": "0",
        # the sandbox account stands for an app X approved for AI-generated replies
        "AI_REPLIES_APPROVED": "true",
    },
    rules={"write_post": "auto", "write_comment": "summoned", "upvote": "never"},
    secrets=(BEARER, API_SECRET, ACCESS_TOKEN, ACCESS_SECRET, WEB_AUTH_TOKEN),
    bad_auth_env={"TWITTER_API_SECRET": "wrong-api-secret"},
    variants={"twikit-first": TWIKIT},
)

AI_REPLIES = "TWITTER_AI_REPLIES_APPROVED"


def unapproved(sandbox_url: str) -> dict[str, str]:
    """The server's env as an operator has it by default: X has not approved this app for
    AI-generated replies (TWITTER_AI_REPLIES_APPROVED unset)."""
    return {k: v for k, v in SPEC.env(sandbox_url).items() if k != AI_REPLIES}
