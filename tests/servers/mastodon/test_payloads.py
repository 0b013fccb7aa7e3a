"""Recorded Mastodon responses (payloads/, sources in its README): the server maps them,
and the sandbox serves at least their fields, so the emulator cannot drift from the real
shapes unnoticed. In-process, no network (fast tier)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gwanjong_mastodon.adapter import MastodonAdapter
from gwanjong_mastodon.rules import opted_out, unshown
from gwanjong_mastodon.settings import Settings
from gwanjong_mastodon.statuses import comment_tree, post_of, text_of
from gwanjong_sandbox.mastodon.world import NOBOT, build_world, content_html, context

PAYLOADS = Path(__file__).parent / "payloads"


def recorded(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def test_a_recorded_mention_maps_to_a_post() -> None:
    mention, follow = recorded("notifications_mention.json")["body"]
    assert follow["type"] == "follow" and "status" not in follow
    post = post_of(mention["status"], "mastodon", tags=["mention"])
    assert (post.id, post.author, post.tags) == ("109440144846268383", "admin", ["mention"])
    assert post.body == "@mastodonpy_test hello!"  # the h-card link reads as the mention
    assert post.url == "http://localhost:3000/@admin/109440144846268383"
    assert post.published_at == "2022-12-01T19:48:05.180Z"


def test_a_recorded_hashtag_status_maps_to_a_post() -> None:
    record = recorded("timeline_tag.json")
    post = post_of(record["body"][0], "mastodon")
    assert post.body == "#hoot (hashtag toot)" and post.tags == ["hoot"]
    assert post.title == ""  # no content warning
    assert "max_id=109440153064280358" in record["headers"]["Link"]


def test_links_cut_short_become_the_whole_url() -> None:
    markup = (
        '<p>See <a href="https://example.com/a/very/long/path" rel="nofollow noopener"><span '
        'class="invisible">https://</span><span class="ellipsis">example.com/a/ve</span><span '
        'class="invisible">ry/long/path</span></a> &amp; it&#39;s fine<br />next</p><p>two</p>'
    )
    assert text_of(markup) == "See https://example.com/a/very/long/path & it's fine\nnext\n\ntwo"


def test_a_mention_or_hashtag_link_elsewhere_shows_where_it_goes() -> None:
    """Remote HTML keeps the classes mention and hashtag on any link (Mastodon's sanitizer
    allows them): a link that reads as a mention but goes elsewhere shows its URL too."""
    remote = '<span class="h-card"><a href="https://other.example/@bob" class="u-url mention">@<span>bob</span></a></span>'
    tag = '<a href="https://sandbox.social/tags/rust" class="mention hashtag" rel="tag">#<span>Rust</span></a>'
    assert text_of(f"<p>{remote} {tag}</p>") == "@bob #Rust"  # where they say they go
    fake = '<a href="https://phish.example/login" class="u-url mention">@<span>alice</span></a>'
    fake_tag = '<a href="https://phish.example/x" class="mention hashtag">#<span>nobot</span></a>'
    assert text_of(f"<p>Ask {fake}</p>") == "Ask @alice (https://phish.example/login)"
    assert text_of(fake_tag) == "#nobot (https://phish.example/x)"


def test_content_warning_and_visibility_are_kept() -> None:
    status = recorded("timeline_tag.json")["body"][0] | {
        "spoiler_text": "meta",
        "visibility": "private",
    }
    post = post_of(status, "mastodon")
    assert post.title == "CW: meta" and "visibility:private" in post.tags


def test_a_reply_that_keeps_an_audience_or_a_warning_is_a_persons() -> None:
    """An approval shows a write as public with no content warning: a reply that would keep
    a narrower audience (Mastodon's, or one it does not name: Akkoma's local, a fork's
    circles) or a content warning is left to a person, never widened or stripped."""
    assert unshown({"visibility": "public", "spoiler_text": ""}) is None
    for narrow in ("unlisted", "private", "direct", "local", "mutuals_only", "", "PUBLIC"):
        assert repr(narrow) in (unshown({"visibility": narrow}) or ""), narrow
    assert "'spoilers'" in (unshown({"visibility": "public", "spoiler_text": "spoilers"}) or "")


def test_mastodon_counts_urls_and_remote_mentions_its_way() -> None:
    adapter = MastodonAdapter(Settings(_env_file=None))  # pyright: ignore[reportCallIssue]
    url = "https://example.com/" + "x" * 200
    assert adapter.measure(f"see {url}", "graphemes") == 4 + 23
    assert adapter.measure("@carl@fosstodon.org hi", "graphemes") == len("@carl hi")


def test_a_mention_is_read_as_mastodon_reads_one() -> None:
    adapter = MastodonAdapter(Settings(_env_file=None))  # pyright: ignore[reportCallIssue]
    adapter.domain = "sandbox.social"
    carl = {"account": {"acct": "carl"}}
    text = "@carl, @Carl@sandbox.social: mail carl@x.example or see https://a.example/@eve"
    assert adapter.strangers(text, carl) is None  # an address or a profile link notifies no one
    assert "@eve@a.example, " in (adapter.strangers("cc @eve@a.example.", carl) or "")


def test_nobot_and_noai_in_a_bio_name_or_field_opt_out() -> None:
    assert opted_out({"note": "<p>Dev. #NoBot please</p>", "display_name": "Q"}) == "#nobot"
    assert opted_out({"note": "", "display_name": "Ann #noAI"}) == "#noai"
    assert opted_out({"note": "<p>#nobotany fan</p>", "display_name": ""}) is None
    assert opted_out({"note": "<p>Please, #NoBots.</p>"}) == "#nobot"
    tag = '<a href="https://a.example/tags/nobot" class="mention hashtag">#<span>NoBot</span></a>'
    field = {"name": "Bots", "value": tag}
    assert opted_out({"note": "", "fields": [{"name": "#noAI", "value": ""}]}) == "#noai"
    assert opted_out({"note": "", "display_name": "", "fields": [field]}) == "#nobot"


def test_the_sandbox_serves_every_recorded_field() -> None:
    world = build_world()
    mention, _follow = recorded("notifications_mention.json")["body"]
    ours = world.notifications[0]
    assert set(mention) <= set(ours) | {"group_key"}
    real_status = set(mention["status"])
    assert real_status <= set(ours["status"])
    assert set(mention["account"]) - {"noindex"} <= set(ours["account"])
    tagged = recorded("timeline_tag.json")["body"][0]
    assert set(tagged) - {"pinned"} <= set(next(iter(world.statuses.values())))
    html, mentions = content_html(world, "Hey {me}, see https://example.com/x #MCP")
    assert 'class="u-url mention"' in html and 'class="invisible"' in html and mentions
    assert any(a["username"] == NOBOT and "#NoBot" in a["note"] for a in world.accounts.values())


def test_the_sandbox_tree_maps_with_parents_first() -> None:
    world = build_world()
    root = world.by_key["mcp-servers"]
    comments = comment_tree(root, world.statuses[root], context(world, root), "mastodon", 100)
    seen: set[str] = set()
    for c in comments:
        assert c.parent_id is None or c.parent_id in seen
        seen.add(c.id)
    assert len(comments) == 6


def test_local_accounts_match_an_opt_out_entry_with_or_without_the_domain() -> None:
    settings = Settings(_env_file=None, api_base_url="https://fosstodon.org")  # pyright: ignore[reportCallIssue]
    handles = MastodonAdapter(settings).profile().handles
    assert handles.hosts == ["fosstodon.org"] and handles.strip_suffixes == ["@fosstodon.org"]


def test_a_remote_mention_reads_as_the_whole_handle_it_was_written_with() -> None:
    """Mastodon shows @ann for @ann@other.example (its mentions list holds the handle): a
    reply read back must read as it was sent, or a read-back never finds it."""
    status = recorded("timeline_tag.json")["body"][0] | {
        "content": '<p><span class="h-card" translate="no"><a href="https://other.example/@ann" '
        'class="u-url mention">@<span>ann</span></a></span> <span class="h-card"><a '
        'href="https://sandbox.social/@bo" class="u-url mention">@<span>bo</span></a></span> '
        "thanks</p>",
        "mentions": [
            {
                "id": "9",
                "username": "ann",
                "acct": "ann@other.example",
                "url": "https://other.example/@ann",
            },
            {"id": "8", "username": "bo", "acct": "bo", "url": "https://sandbox.social/@bo"},
        ],
    }
    assert post_of(status, "mastodon").body == "@ann@other.example @bo thanks"
