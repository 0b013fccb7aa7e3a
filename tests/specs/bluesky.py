from tests.platforms import PlatformSpec

SPEC = PlatformSpec(
    name="bluesky",
    values=lambda url: {
        "BASE_URL": url,
        "HANDLE": "gwanjong.bsky.social",
        "APP_PASSWORD": "gwjn-sbx1-bsky-pass",
        "ALLOWED_HOSTS": "127.0.0.1",  # only the sandbox: a didDoc naming another host fails
        "REQUESTS_PER_5MIN": "100000",
        "WRITE_INTERVAL_S": "0",
    },
    rules={"write_post": "auto", "write_comment": "summoned", "upvote": "summoned"},
    secrets=("gwjn-sbx1-bsky-pass",),
    bad_auth_env={"BLUESKY_APP_PASSWORD": "wrong-app-password"},
    account="gwanjong.bsky.social",
)
