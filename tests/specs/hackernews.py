from tests.platforms import PlatformSpec

SPEC = PlatformSpec(
    name="hackernews",
    values=lambda url: {
        "API_URL": url,
        "SEARCH_URL": url,
        "USERNAME": "gwanjong_bot",
        "SEARCHES_PER_MINUTE": "6000",
    },
    # HN's guidelines: no generated comments, and it has no write API.
    rules={"write_post": "never", "write_comment": "never", "upvote": "never"},
    secrets=(),  # nothing secret: both APIs are public
    bad_auth_env={"HACKERNEWS_USERNAME": "nobody_here"},  # a name HN does not know
    variants={"by-date": {"HACKERNEWS_SEARCH_ORDER": "date"}},
)
