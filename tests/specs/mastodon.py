# Mastodon.py imports python-magic, which runs `ldconfig` once: imported here, while the
# specs are collected, so that no fast-tier test (one process) is the one to start it.
import mastodon  # noqa: F401  # pyright: ignore[reportUnusedImport]

from tests.platforms import PlatformSpec

SPEC = PlatformSpec(
    name="mastodon",
    values=lambda url: {
        "API_BASE_URL": url,
        "ACCESS_TOKEN": "sbx-mastodon-bot-token",
        "REQUESTS_PER_5MIN": "100000",
    },
    # Posts as a flagged bot; replies and favourites only where summoned.
    rules={"write_post": "auto", "write_comment": "summoned", "upvote": "summoned"},
    secrets=("sbx-mastodon-bot-token",),
    bad_auth_env={"MASTODON_ACCESS_TOKEN": "wrong-mastodon-token"},
)
