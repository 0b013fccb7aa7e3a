"""`setup`: check each platform, explain how to get its keys today, save them safely."""

from __future__ import annotations

import re
from pathlib import Path

from gwanjong_gateway.dotenv_file import save
from gwanjong_shared.untrusted import quote

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

# Even a server that declares it is never allowed to let `setup` move its endpoints.
_CREDENTIAL = re.compile(r"^[A-Z][A-Z0-9_]{1,63}$")
_NOT_CREDENTIAL = re.compile(r"URL|HOST|PROXY|ENDPOINT|CA_BUNDLE|CERT")


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


def allowed_names(platform: str, declared: object) -> list[str] | None:
    """The credential names `setup` may save for `platform`: what its server declares in
    `capabilities`, minus anything that is not a credential. None if it declared nothing."""
    if not isinstance(declared, list) or not declared:
        return None
    prefix = f"{platform.upper()}_"
    return [
        name
        for name in declared
        if isinstance(name, str)
        and _CREDENTIAL.match(name)
        and name.startswith(prefix)
        and not _NOT_CREDENTIAL.search(name)
    ] or None


def check_names(platform: str, allowed: list[str], credentials: dict[str, str]) -> None:
    """Raise ValueError naming (bounded) any name that is not one of `allowed`."""
    bad = [quote(k, 60) for k in credentials if k not in allowed]
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ValueError(
            f"{', '.join(bad[:5])}{more} cannot be saved for {platform}: setup saves only "
            f"{', '.join(allowed)}. Endpoints, proxies and other settings belong in gateway.toml "
            "or the operator's environment."
        )


def save_credentials(state_dir: Path, platform: str, credentials: dict[str, str]) -> list[str]:
    """Merge into `<state_dir>/.env` (atomic, mode 0600). Returns the variable names saved.
    The caller has checked the names against the server's declared credentials."""
    save(state_dir / ".env", credentials)
    return sorted(credentials)
