from tests.platforms import PlatformSpec

SPEC = PlatformSpec(
    name="devto",
    values=lambda url: {
        "BASE_URL": url,
        "API_KEY": "sandbox-devto-key",
        "READS_PER_MINUTE": "6000",
        "WRITE_INTERVAL_S": "1",
    },
    rules={"write_post": "approved", "write_comment": "human", "upvote": "human"},
    secrets=("sandbox-devto-key",),
    bad_auth_env={"DEVTO_API_KEY": "wrong-key"},
)
