"""What a program may do on Reddit, and the per-target checks (locked, archived, removed
threads; locked comments; r/Bottiquette's lists are ``bottiquette``)."""

from __future__ import annotations

from asyncpraw.models import Comment, Submission

from gwanjong_shared.contract import ActionRule, Limit, LimitName

POST_RULE = ActionRule(
    allowed="auto",
    reason="Reddit's API lets an approved script app submit self-posts as its own account. "
    "Follow the subreddit's rules on bots and self-promotion, say that the account is "
    "automated, and never post the same text to several subreddits.",
)
COMMENT_RULE = ActionRule(
    allowed="auto",
    reason="Reddit's API lets an approved script app reply as its own account, but each "
    "subreddit's rules still apply: subreddits on r/Bottiquette's lists are checked per "
    "thread, others may ban bots too (read the sidebar first), the account must disclose "
    "that it is a bot, and one reply per thread is the norm.",
)
UPVOTE_RULE = ActionRule(
    allowed="never",
    reason="Reddit's Content Policy forbids vote manipulation, 'manual, programmatic, or "
    "otherwise' (reddithelp article 360043066412), so a program must never vote.",
)
LIMITS: dict[LimitName, Limit] = {
    "title": Limit(max=300, unit="chars"),
    "body": Limit(max=40_000, unit="chars"),
    "comment": Limit(max=10_000, unit="chars"),
}
# What `setup` may save for this server (never endpoints: those come from the operator).
CREDENTIALS = ["REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET", "REDDIT_USERNAME", "REDDIT_PASSWORD"]


def rule_for_thread(action: str, submission: Submission, rule: ActionRule) -> ActionRule:
    """A locked or archived thread takes no comments, whatever the general rule says."""
    d = vars(submission)
    if action == "write_comment" and d.get("locked"):
        return ActionRule(
            allowed="never",
            reason="The thread is locked by its moderators: Reddit takes no new comments there.",
        )
    if action == "write_comment" and d.get("removed_by_category"):
        return ActionRule(
            allowed="never",
            reason=f"The post was taken down ({d['removed_by_category']}: by its author, its "
            "moderators or Reddit): a reply there would go against the subreddit's moderation.",
        )
    if action == "write_comment" and d.get("archived"):
        return ActionRule(
            allowed="never",
            reason="The thread is archived: Reddit closes threads to new comments after six "
            "months.",
        )
    return rule


def rule_for_parent(comment: Comment, rule: ActionRule) -> ActionRule:
    """A locked comment takes no replies (Reddit answers THREAD_LOCKED), whatever the
    thread allows."""
    if vars(comment).get("locked"):
        return ActionRule(
            allowed="never",
            reason="The comment is locked by the subreddit's moderators: Reddit takes no "
            "replies under it.",
        )
    return rule
