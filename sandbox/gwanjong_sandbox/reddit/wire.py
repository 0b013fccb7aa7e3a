"""Reddit's payload shapes: t3 links, t1 comments, "more" and "continue" stubs, trees."""

from __future__ import annotations

from typing import Any

from gwanjong_sandbox.reddit.model import (
    MAX_DEPTH,
    WWW,
    RComment,
    RLink,
    md_html,
    sr_id,
    subtree_size,
    user_fullname,
)
from gwanjong_sandbox.reddit.state import RedditState


class RedditWire(RedditState):
    """Renders stored things as Reddit sends them (payloads/reddit)."""

    # -- rendering ------------------------------------------------------------------

    def _t3(self, link: RLink) -> dict[str, Any]:
        sub = link.sub
        num_comments = subtree_size(link.comments)
        return {
            "approved_at_utc": None,
            "subreddit": sub,
            "selftext": "[removed]" if link.closed == "removed" else link.selftext,
            "author_fullname": user_fullname(link.author),
            "saved": False,
            "mod_reason_title": None,
            "gilded": 0,
            "clicked": False,
            "title": link.title,
            "link_flair_richtext": [],
            "subreddit_name_prefixed": f"r/{sub}",
            "hidden": False,
            "pwls": 6,
            "link_flair_css_class": None,
            "downs": 0,
            "thumbnail_height": None,
            "top_awarded_type": None,
            "hide_score": False,
            "name": f"t3_{link.id}",
            "quarantine": False,
            "link_flair_text_color": "dark",
            "upvote_ratio": 0.97 if link.score else 1.0,
            "author_flair_background_color": None,
            "subreddit_type": "public",
            "ups": link.score,
            "total_awards_received": 0,
            "media_embed": {},
            "thumbnail_width": None,
            "author_flair_template_id": None,
            "is_original_content": False,
            "user_reports": [],
            "secure_media": None,
            "is_reddit_media_domain": False,
            "is_meta": False,
            "category": None,
            "secure_media_embed": {},
            "link_flair_text": None,
            "can_mod_post": False,
            "score": link.score,
            "approved_by": None,
            "is_created_from_ads_ui": False,
            "author_premium": False,
            "thumbnail": "self",
            "edited": False,
            "author_flair_css_class": None,
            "author_flair_richtext": [],
            "gildings": {},
            "content_categories": None,
            "is_self": True,
            "mod_note": None,
            "created": link.created,
            "link_flair_type": "text",
            "wls": 6,
            "removed_by_category": "moderator" if link.closed == "removed" else None,
            "banned_by": None,
            "author_flair_type": "text",
            "domain": f"self.{sub}",
            "allow_live_comments": False,
            "selftext_html": f"<!-- SC_OFF -->{md_html(link.selftext)}<!-- SC_ON -->"
            if link.selftext
            else None,
            "likes": True if link.mine else None,
            "suggested_sort": None,
            "banned_at_utc": None,
            "view_count": None,
            "archived": link.closed == "archived",
            "no_follow": False,
            "is_crosspostable": True,
            "pinned": False,
            "over_18": False,
            "all_awardings": [],
            "awarders": [],
            "media_only": False,
            "can_gild": False,
            "spoiler": False,
            "locked": link.closed == "locked",
            "author_flair_text": None,
            "treatment_tags": [],
            "visited": False,
            "removed_by": None,
            "num_reports": None,
            "distinguished": None,
            "subreddit_id": sr_id(sub),
            "author_is_blocked": False,
            "mod_reason_by": None,
            "removal_reason": None,
            "link_flair_background_color": "",
            "id": link.id,
            "is_robot_indexable": True,
            "report_reasons": None,
            "author": link.author,
            "discussion_type": None,
            "num_comments": num_comments,
            "send_replies": True,
            "contest_mode": False,
            "mod_reports": [],
            "author_patreon_flair": False,
            "author_flair_text_color": None,
            "permalink": link.permalink,
            "stickied": False,
            "url": WWW + link.permalink,
            "subreddit_subscribers": 120_000,
            "created_utc": link.created,
            "num_crossposts": 0,
            "media": None,
            "is_video": False,
        }

    def _t1(self, c: RComment, link: RLink, depth: int | None, replies: Any) -> dict[str, Any]:
        sub = link.sub
        data: dict[str, Any] = {
            "subreddit_id": sr_id(sub),
            "approved_at_utc": None,
            "author_is_blocked": False,
            "comment_type": None,
            "awarders": [],
            "total_awards_received": 0,
            "mod_reason_by": None,
            "banned_by": None,
            "ups": c.score,
            "removal_reason": None,
            "link_id": f"t3_{c.link_id}",
            "likes": True if c.mine else None,
            "replies": replies,
            "user_reports": [],
            "saved": False,
            "id": c.id,
            "banned_at_utc": None,
            "mod_reason_title": None,
            "gilded": 0,
            "archived": False,
            "collapsed_reason_code": None,
            "no_follow": True,
            "author": c.author,
            "can_mod_post": False,
            "created_utc": c.created,
            "send_replies": True,
            "parent_id": c.parent,
            "score": c.score,
            "approved_by": None,
            "mod_note": None,
            "all_awardings": [],
            "collapsed": False,
            "body": c.body,
            "edited": False,
            "top_awarded_type": None,
            "downs": 0,
            "author_flair_css_class": None,
            "name": f"t1_{c.id}",
            "is_submitter": c.author == link.author,
            "body_html": md_html(c.body),
            "gildings": {},
            "collapsed_reason": None,
            "distinguished": None,
            "associated_award": None,
            "stickied": False,
            "can_gild": False,
            "subreddit": sub,
            "author_flair_text_color": None,
            "score_hidden": False,
            "permalink": f"{link.permalink}{c.id}/",
            "subreddit_type": "public",
            "locked": c.locked,
            "report_reasons": None,
            "created": c.created,
            "author_flair_text": None,
            "treatment_tags": [],
            "subreddit_name_prefixed": f"r/{sub}",
            "controversiality": 0,
            "author_flair_background_color": None,
            "collapsed_because_crowd_control": None,
            "mod_reports": [],
            "num_reports": None,
            "ups_hidden": False,
            "author_fullname": user_fullname(c.author),
            "author_premium": False,
            "author_patreon_flair": False,
            "author_flair_richtext": [],
            "author_flair_type": "text",
            "author_flair_template_id": None,
        }
        if depth is not None:  # a freshly created comment has no depth key
            data["depth"] = depth
        if c.deleted:
            # Deleted: the author is gone, its fullname and flair/premium keys too.
            data.update(
                author="[deleted]",
                body="[removed]",
                body_html=md_html("[removed]"),
                is_submitter=False,
                collapsed=True,
                collapsed_reason="comment score below threshold",
            )
            for key in (
                "author_fullname",
                "author_premium",
                "author_patreon_flair",
                "author_flair_richtext",
                "author_flair_type",
                "author_flair_template_id",
            ):
                del data[key]
        return data

    @staticmethod
    def _more(rest: list[RComment], parent: str, depth: int) -> dict[str, Any]:
        first = rest[0].id
        return {
            "kind": "more",
            "data": {
                "count": subtree_size(rest),
                "name": f"t1_{first}",
                "id": first,
                "parent_id": parent,
                "depth": depth,
                "children": [c.id for c in rest],
            },
        }

    @staticmethod
    def _continue(parent: str, depth: int) -> dict[str, Any]:
        return {
            "kind": "more",
            "data": {
                "count": 0,
                "name": "t1__",
                "id": "_",
                "parent_id": parent,
                "depth": depth,
                "children": [],
            },
        }

    def _sorted(self, nodes: list[RComment], sort: str) -> list[RComment]:
        # A new comment waits out the sandbox's read-back lag before reads show it.
        nodes = [c for c in nodes if self.state.visible("reddit", c.id)]
        if sort == "new":
            return sorted(nodes, key=lambda c: -c.created)
        if sort == "old":
            return sorted(nodes, key=lambda c: c.created)
        # confidence/top/controversial/q&a: best first; ties keep thread order
        return sorted(nodes, key=lambda c: -c.score)

    def _tree(
        self,
        link: RLink,
        nodes: list[RComment],
        parent: str,
        depth: int,
        budget: list[int],
        sort: str,
        base_depth: int = 0,
    ) -> list[dict[str, Any]]:
        """A nested comment listing; spent budget turns the rest into a "more" stub."""
        out: list[dict[str, Any]] = []
        ordered = self._sorted(nodes, sort)
        if ordered and depth - base_depth >= MAX_DEPTH:
            return [self._continue(parent, depth - base_depth)]
        for i, node in enumerate(ordered):
            if budget[0] <= 0:
                out.append(self._more(ordered[i:], parent, depth - base_depth))
                break
            budget[0] -= 1
            children = self._tree(
                link, node.children, f"t1_{node.id}", depth + 1, budget, sort, base_depth
            )
            replies: Any = ""
            if children:
                replies = {
                    "kind": "Listing",
                    "data": {
                        "after": None,
                        "dist": None,
                        "modhash": None,
                        "children": children,
                        "before": None,
                    },
                }
            out.append({"kind": "t1", "data": self._t1(node, link, depth - base_depth, replies)})
        return out

    def _flat(
        self,
        link: RLink,
        nodes: list[RComment],
        parent: str,
        depth: int,
        budget: list[int],
        sort: str,
        out: list[dict[str, Any]],
        ordered: bool = False,
    ) -> None:
        """The /api/morechildren form: every thing in one flat list, parents first."""
        items = nodes if ordered else self._sorted(nodes, sort)
        if items and depth >= MAX_DEPTH:
            out.append(self._continue(parent, depth))
            return
        for i, node in enumerate(items):
            if budget[0] <= 0:
                out.append(self._more(items[i:], parent, depth))
                return
            budget[0] -= 1
            out.append({"kind": "t1", "data": self._t1(node, link, depth, "")})
            self._flat(link, node.children, f"t1_{node.id}", depth + 1, budget, sort, out)
