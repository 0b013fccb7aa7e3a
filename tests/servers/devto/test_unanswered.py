"""Dev.to's inbox walker on a comment tree in memory (the fast tier; the inbox over the
sandbox: test_devto.py)."""

from __future__ import annotations

from gwanjong_devto.mentions import unanswered


def test_unanswered_walks_the_whole_tree() -> None:
    def node(who: str, text: str, *children: dict[str, object]) -> dict[str, object]:
        return {
            "id_code": f"{who}-{len(text)}",
            "user": {"username": who} if who else {},
            "body_html": f"<p>{text}</p>",
            "children": list(children),
        }

    article = {"user": {"username": "me"}}
    roots = [
        node("ann", "first!", node("me", "thanks")),  # answered
        node("bob", "question?", node("cat", "ask @me, not us")),  # bob: reply; cat: mention
        node("me", "an update", node("dan", "nice update")),  # a reply to our comment
        node("", "[deleted]"),  # no author: nothing to answer
    ]
    found = [(n["user"]["username"], why) for n, why in unanswered(article, roots, "me")]  # type: ignore[index]
    assert found == [("bob", "reply"), ("cat", "mention"), ("dan", "reply")]
