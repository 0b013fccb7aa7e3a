"""Recorded Hacker News responses (payloads/, sources in its README): the server maps them,
and the sandbox serves at least their fields, so the emulator cannot drift from the real
shapes unnoticed. In-process, no network (fast tier)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gwanjong_hackernews.adapter import post_from_hit, post_from_item, text_of
from gwanjong_sandbox.hackernews import algolia
from gwanjong_sandbox.hackernews.world import ME, build_world, user

PAYLOADS = Path(__file__).parent / "payloads"


def recorded(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))["body"]


def test_a_recorded_story_maps_to_a_post() -> None:
    post = post_from_item(recorded("firebase_item_story.json"), "hackernews")
    assert (post.id, post.author, post.likes, post.comments_count) == ("8863", "dhouston", 111, 71)
    assert post.title.startswith("My YC app: Dropbox")
    assert post.url == "https://news.ycombinator.com/item?id=8863"
    assert post.body == "http://www.getdropbox.com/u/2/screencast.html"  # a link story: its URL
    assert post.published_at == "2007-04-04T19:16:40Z"


def test_a_recorded_comment_becomes_text() -> None:
    text = text_of(recorded("firebase_item_comment.json")["text"])
    assert text == (
        "Aw shucks, guys ... you make me blush with your compliments.\n\n"
        "Tell you what, Ill make a deal: I'll keep writing if you keep reading. K?"
    )


def test_links_and_entities_become_text() -> None:
    markup = (
        'See <a href="https:&#x2F;&#x2F;tarjim.ly&#x2F;a&#x2F;long" rel="nofollow">'
        "https:&#x2F;&#x2F;tarjim.ly&#x2F;a...</a> &amp; it&#x27;s <i>fine</i>"
    )
    assert text_of(markup) == "See https://tarjim.ly/a/long & it's fine"


def test_recorded_hits_map_to_posts() -> None:
    hits = recorded("algolia_search_front_page.json")["hits"]
    posts = [post_from_hit(h, "hackernews") for h in hits]
    assert [p.id for p in posts] == ["23734093", "23734535"]
    assert posts[0].tags == ["story", "front_page"]  # author_ and story_ tags dropped
    assert posts[0].likes == 848 and posts[0].comments_count == 157
    assert posts[0].body == "https://simone.computer/#/webdesktops"


def test_the_sandbox_serves_every_recorded_field() -> None:
    world = build_world()
    items = world.items.values()
    story = next(i for i in items if i.get("type") == "story" and i.get("url"))
    comment = next(i for i in items if i.get("type") == "comment" and i.get("kids"))
    # `text` is the one field a link story may lack; the sandbox's link stories carry both
    assert set(recorded("firebase_item_story.json")) <= set(story)
    assert set(recorded("firebase_item_comment.json")) <= set(comment)
    mine = user(world, ME)
    assert mine is not None
    assert set(recorded("firebase_user.json")) - {"delay"} <= set(mine)

    status, body = algolia.search(world, "cancellation", "story", 0, 20, False, "")
    envelope = recorded("algolia_search_envelope.json")
    assert status == 200 and set(envelope) <= set(body)
    real_hit = envelope["hits"][0]
    # Newer Algolia hits drop the null fields of the other kind (story_title on a story)
    kept = {k for k, v in real_hit.items() if v is not None}
    assert kept <= set(body["hits"][0])
    assert set(real_hit["_highlightResult"]) <= set(body["hits"][0]["_highlightResult"])
    assert "<em>cancellation</em>" in body["hits"][0]["_highlightResult"]["title"]["value"]


def test_the_sandbox_pages_like_algolia() -> None:
    world = build_world()
    status, first = algolia.search(world, "", "comment", 0, 20, True, "")
    assert status == 200 and first["page"] == 0 and len(first["hits"]) == 20
    assert first["nbPages"] == min(-(-first["nbHits"] // 20), 50)
    times = [h["created_at_i"] for h in first["hits"]]
    assert times == sorted(times, reverse=True)  # search_by_date: newest first
    status, beyond = algolia.search(world, "", "comment", 50, 20, True, "")
    assert status == 400 and "1000 hits" in beyond["message"]
    assert algolia.parse_tags("author_pg,(story,poll)") == [{"author_pg"}, {"story", "poll"}]
