from tests.platforms import PlatformSpec

SPEC = PlatformSpec(
    name="reddit",
    values=lambda url: {
        "BASE_URL": f"{url}/reddit",
        "CLIENT_ID": "sandbox-reddit-client",
        "CLIENT_SECRET": "sandbox-reddit-secret",
        "USERNAME": "gwanjong_bot",
        "PASSWORD": "sandbox-reddit-password",
        "POST_SUBREDDIT": "test",
        "REQUESTS_PER_MINUTE": "6000",
        "WRITE_INTERVAL_S": "0",
        "RETRY_BACKOFF_S": "0.05",
    },
    rules={"write_post": "auto", "write_comment": "auto", "upvote": "never"},
    secrets=("sandbox-reddit-secret", "sandbox-reddit-password"),
    bad_auth_env={"REDDIT_PASSWORD": "wrong-password"},
)
