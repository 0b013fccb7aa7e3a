"""`setup`: check each platform, explain how to get its keys today, save them safely."""

from __future__ import annotations

import os
import re
from pathlib import Path

from gwanjong_gateway.config import read_dotenv

GUIDES: dict[str, dict[str, object]] = {
    "devto": {
        "vars": ["DEVTO_API_KEY"],
        "steps": [
            "Sign in at dev.to, open Settings > Extensions > 'DEV Community API Keys', name a key and generate it.",
            "The API publishes articles only; comments and reactions are not available to programs (gwanjong hands those to you).",
            "Rate limits: about 30 reads per minute and 1 write per second per key.",
        ],
    },
    "bluesky": {
        "vars": ["BLUESKY_HANDLE", "BLUESKY_APP_PASSWORD"],
        "steps": [
            "In the Bluesky app: Settings > Privacy and security > App passwords > Add App Password. Never use your main password.",
            "Add the `bot` self-label to the profile if the account is automated.",
            "Bluesky asks bots to reply or like only when tagged; gwanjong hands other replies to you.",
        ],
    },
    "twitter": {
        "vars": [
            "TWITTER_BEARER_TOKEN",
            "TWITTER_API_KEY",
            "TWITTER_API_SECRET",
            "TWITTER_ACCESS_TOKEN",
            "TWITTER_ACCESS_SECRET",
        ],
        "steps": [
            "Create a project and app at developer.x.com; new developers get pay-per-use credits (no free tier since 2026-02).",
            "Pricing as of 2026-04: about $0.005 per post read, $0.015 per post created, $0.01 per summoned reply.",
            "Enable OAuth 1.0a read+write and generate the access token and secret for the posting account; set the 'Automated' account label.",
            "Programmatic replies are allowed only when the post mentions or quotes the account; likes are not available on self-serve tiers.",
        ],
    },
    "reddit": {
        "vars": ["REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET", "REDDIT_USERNAME", "REDDIT_PASSWORD"],
        "steps": [
            "Since November 2025 new API access needs Reddit's approval under the Responsible Builder Policy; apply with an honest description of the bot.",
            "With approval, create a 'script' app at reddit.com/prefs/apps; the client id is under the app name.",
            "100 requests per minute with OAuth; programs may never vote; follow each subreddit's bot rules.",
        ],
    },
}

_KEY = re.compile(r"^[A-Z][A-Z0-9_]{1,63}$")


def guide_for(platform: str) -> dict[str, object]:
    return GUIDES.get(
        platform,
        {
            "vars": [f"{platform.upper()}_..."],
            "steps": [
                "This platform is not bundled: see its server's own documentation for credentials."
            ],
        },
    )


def save_credentials(state_dir: Path, platform: str, credentials: dict[str, str]) -> list[str]:
    """Merge into `<state_dir>/.env` (mode 0600). Returns the variable names saved."""
    prefix = f"{platform.upper()}_"
    bad = [k for k in credentials if not _KEY.match(k) or not k.startswith(prefix)]
    if bad:
        raise ValueError(f"credential names must be {prefix}* in capitals; got {', '.join(bad)}")
    for key, value in credentials.items():
        if "\n" in value or "\r" in value:
            raise ValueError(f"{key} must be one line")
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / ".env"
    values = read_dotenv(path)
    values.update(credentials)
    body = "".join(f"{k}={v}\n" for k, v in sorted(values.items()))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(body)
    os.chmod(path, 0o600)
    return sorted(credentials)
