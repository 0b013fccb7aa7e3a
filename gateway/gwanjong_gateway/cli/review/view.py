"""What `gwanjong review` prints: the waiting list and one approval in full.

Everything shown may come from a stranger (the post answered) or from a tricked model (the
text to send), so nothing reaches the terminal raw: every text is drawn by the one renderer
(`contract.visible`): each control, bidi, zero-width, tag or other hidden character is
written out as a visible mark (`⟦U+202E⟧`) with a count and a warning, so a person never
approves what they cannot see and no escape sequence reaches the terminal. `show` prints
the whole text, never cut. Every quoted line starts with a bar, so no quoted text can pass
for gwanjong's own lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, Hold, iso
from gwanjong_gateway.rules.ledger import Strike
from gwanjong_gateway.rules.outgoing import Outgoing
from gwanjong_gateway.rules.refs import approval_ref, handoff_ref
from gwanjong_shared.contract.visible import BAR, json_escaped, link, quoted, show
from gwanjong_shared.contract.visible import line as one_line

#: how much of the post answered `show` quotes (platform context, not what is sent)
POST_CHARS = 4000


def span(seconds: float) -> str:
    """A duration in two units at most: 45s, 12m, 3h05m, 2d04h."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def who(principal: str) -> str:
    return one_line(principal, 40) if principal else "(local)"


def first_line(text: str, width: int = 60) -> str:
    """The first line with words, marked (a list's excerpt: `show` prints the whole)."""
    for line in show(text).text.split("\n"):
        if line.strip():
            return one_line(line, width)
    return ""


@dataclass(frozen=True)
class Item:
    """One line of `review list`: an approval or a hand-off, as JSON and as a row."""

    kind: str  # "approval" | "handoff"
    data: dict[str, Any]  # the stable JSON object
    created_at: float
    expires_in: float | None  # seconds; None: decided
    excerpt: str
    note: str = ""  # one more line under it (a hand-off's unverified claim)


def blocked(hold: Hold | None) -> dict[str, str] | None:
    """`list --json`'s ``blocked``: why approving now would only be refused, and from when
    it could be sent ("" until writes resume)."""
    if hold is None:
        return None
    return {"why": one_line(hold.why, 300), "from": iso(hold.until) if hold.until else ""}


def approval_item(a: Approval, now: float, hold: Hold | None = None) -> Item:
    excerpt = first_line(a.text)
    data = {
        "kind": "approval",
        "ref": approval_ref(a.id),
        **a.public(now),
        "title": a.title,
        "tags": list(a.tags),
        "blocked": blocked(hold),
        "excerpt": excerpt,
    }
    left = a.expires_at - now if a.open_at(now) else None
    return Item("approval", data, a.created_at, left, excerpt)


def handoff_item(r: Strike, expire_after_s: float, now: float) -> Item:
    """A hand-off in the shape of an approval's `public` (the same keys, every time), and
    whether the model claimed it posted (unverified: it stays the person's)."""
    excerpt = first_line(r.content)
    expires_at = r.created_at + expire_after_s
    data: dict[str, Any] = {
        "kind": "handoff",
        "ref": handoff_ref(r.id),
        "id": r.id,
        "status": str(r.status),
        "platform": r.platform,
        "action": str(r.action),
        "target": r.write.target_of(),
        "by": r.principal,
        "created_at": iso(r.created_at),
        "expires_at": iso(expires_at),
        "decided_by": r.confirmed_by,
        "channel": "",
        "decided_at": "",
        "reason": r.reason,
        "edited": False,
        "record": r.id,
        "sha256": r.write.digest(),
        "title": r.title,
        "tags": [],
        "said": f"waits for a person since {iso(r.created_at)}",
        "blocked": None,
        "excerpt": excerpt,
        "claimed_at": iso(r.claimed_at) if r.claimed_at else "",
        "claimed_url": r.claimed_url,
    }
    note = claim_note(r)
    return Item("handoff", data, r.created_at, expires_at - now, excerpt, note)


def claim_note(r: Strike) -> str:
    """What the model said of this hand-off, if it said it was posted (never proof)."""
    if not r.claimed_at:
        return ""
    at = f" at {link(r.claimed_url)}" if r.claimed_url else ""
    return f"claimed posted by the model{at}, unverified ({iso(r.claimed_at)})"


def escaped_json(value: Any) -> str:
    """``value`` exactly, hidden characters as JSON escapes (the terminal sees no raw one)."""
    return json_escaped(json.dumps(value, ensure_ascii=False, indent=2))


def table(items: list[Item], now: float, decided: bool) -> list[str]:
    """The list for a person, within 80 columns: per item a head line, then its target and
    the first line of its text, indented."""
    if not items:
        return ["Nothing waits for a person." if not decided else "No approvals or hand-offs."]
    lines = [
        f"{'ID':>5}  {'KIND':<8} {'STATUS':<9} {'PLATFORM':<9} {'ACTION':<8} "
        f"{'ASKED BY':<12} {'AGE':>6} {'EXPIRES':>7}"
    ]
    for i in items:
        d = i.data
        kind = "hand-off" if i.kind == "handoff" else "approval"
        left = span(i.expires_in) if i.expires_in is not None else "-"
        held = d.get("blocked")
        status = "blocked" if held else d["status"]
        lines.append(
            f"{d['ref']:>5}  {kind:<8} {status:<9} {one_line(d['platform'], 9):<9} "
            f"{d['action']:<8} {one_line(who(d['by']), 12):<12} {span(now - i.created_at):>6} {left:>7}"
        )
        target = one_line(d["target"], 200) if d["action"] == "post" else link(d["target"])
        lines.append(f"{'':>7}@ {target}")
        if d.get("title"):
            lines.append(f"{'':>7}| title: {one_line(d['title'], 200)}")
        if d.get("tags"):
            lines.append(f"{'':>7}| tags: {one_line(', '.join(d['tags']), 200)}")
        if held:
            lines.append(f"{'':>7}! blocked: {held['why']} (from {held['from'] or 'a resume'})")
        elif decided and i.kind == "approval" and d["status"] != "pending":
            lines.append(f"{'':>7}= {d['said']}")
        if i.excerpt:
            lines.append(f"{'':>7}| {i.excerpt}")
        if i.note:
            lines.append(f"{'':>7}! {i.note}")
    lines.append("")
    lines.append("Each row quotes the first line of its text; `show ID` prints all of it.")
    lines.append("approval: gwanjong review show|approve|decline aID")
    lines.append(
        "hand-off: post it by hand, then gwanjong review done hID --url URL (or review dismiss hID)"
    )
    return lines


def sent_text(
    title: str, text: str, tags: tuple[str, ...] | None = None, size: str = ""
) -> list[str]:
    """The exact text to send, whole, behind the bar, hidden characters marked; ``tags``:
    a new post's (None: the write has none to show); ``size``: its length as the platform
    counts it (`Approval.size`; "": its plain length)."""
    lines: list[str] = []
    t, body = show(title), show(text)
    if title:
        lines += quoted(f"Title: {t.text}")
    tagged = [show(tag, fold=False) for tag in tags or ()]
    if tags is not None:
        lines += quoted(f"Tags: {', '.join(g.text for g in tagged) or '(none)'}")
    if title or tags is not None:
        lines.append(BAR.rstrip())
    lines += quoted(body.text) if text else [BAR + "(no text: an upvote)"]
    lines.append(
        f"  ({size or f'{len(text):,} characters'}: that is the whole text, nothing is cut)"
    )
    for what, s in (("title", t), *(("tag", g) for g in tagged), ("text", body)):
        if s.hidden:
            lines.append(
                f"  WARNING ({what}): {s.warning()} Decline, or approve an edit without them."
            )
    return lines


def details(a: Approval, now: float, hold: Hold | None = None) -> list[str]:
    """Everything a person needs to decide approval ``a``; ``hold``: why approving it now
    would only be refused (it is shown as blocked, and only declining is offered)."""
    open_now = a.open_at(now)
    hold = hold if open_now else None  # a decided or expired approval is not held
    if open_now:
        state = "pending" if hold is None else "blocked"
        head = f"{state}, expires {iso(a.expires_at)} (in {span(a.expires_at - now)})"
    else:
        head = one_line(a.said(now), 300)
    lines = [
        f"Approval {approval_ref(a.id)}: {head}",
        f"  what:     {one_line(a.where(), 2400)}",
        f"  asked by: {who(a.principal)} at {iso(a.created_at)}",
    ]
    if hold is not None:
        when = f"it could be sent from {iso(hold.until)}" if hold.until else "until writes resume"
        lines.append(f"  blocked:  {one_line(hold.why, 300)} ({when})")
    if a.reason:
        lines.append(f"  reason:   {one_line(a.reason, 300)}")
    if a.edited:
        lines.append("  edited:   yes, by the person who approved it")
    if open_now:
        said = "This exact text will be sent"
    elif a.status_at(now) is ApprovalStatus.APPROVED:
        said = "This exact text was approved and sent"
    else:
        said = "This text was not sent"
    lines += ["", *sent_write(a.write, said, a.size()), f"  SHA-256: {a.digest}"]
    lines += ["", *answered(a)]
    lines += ["", "Policy decisions so far:"]
    lines += [f"  - {one_line(str(d), 300)}" for d in a.policy] or ["  (none)"]
    if open_now and hold is None:
        lines += [
            "",
            f"Decide: gwanjong review approve {approval_ref(a.id)} [--text-file F]"
            f"{' [--title T] [--tags a,b]' if a.action == 'post' else ''}   |   "
            f"gwanjong review decline {approval_ref(a.id)} [--reason TEXT]",
        ]
    elif open_now:
        lines += [
            "",
            f"Decide: gwanjong review decline {approval_ref(a.id)} [--reason TEXT] (approving waits)",
        ]
    return lines


def answered(a: Approval) -> list[str]:
    """The post this write answers, as the record keeps it: platform text, quoted."""
    post = a.post
    if a.action == "post":
        head = "Drafted from this post (platform text: data to read, not instructions):"
    else:
        head = "The post it answers (platform text: data to read, not instructions):"
    title = one_line(str(post.get("title") or a.context.get("title") or ""), 300)
    author = one_line(str(post.get("author") or a.author or ""), 80)
    body = show(str(post.get("body") or ""), POST_CHARS)
    lines = [head]
    if title:
        lines.append(BAR + f"title: {title}")
    if author:
        lines.append(BAR + f"by: {author}")
    url = str(post.get("url") or a.target_url or "")
    if url:
        lines.append(BAR + f"at: {link(url)}")
    if body.text.strip():
        lines.append(BAR.rstrip())
        lines += quoted(body.text)
    if body.more:
        lines.append(BAR + f"… {body.more:,} more characters of the post not shown")
    return lines


def sent_write(
    w: Outgoing, said: str = "This exact text will be sent", size: str = ""
) -> list[str]:
    """Everything one write sends: as whom, visible to whom, then title, tags and the exact
    text (disclosure footer included), each hidden character written out."""
    who = one_line(w.account, 80) if w.account else "our account (not known yet)"
    lines = [f"{said}:", f"  {w.visibility}, as {who} (title, tags and disclosure footer included)"]
    lines += [f"  also sent: {one_line(a, 400)}" for a in w.also()]
    lines += [f"  link: {link(u)}" for u in w.links]  # where each one in the text leads
    lines += sent_text(w.title, w.text, w.tags if w.action == "post" else None, size)
    return lines


def edit_view(a: Approval, edited: Outgoing) -> list[str]:
    """The person's edit of approval ``a``: what will be sent instead."""
    return [
        f"Approval {approval_ref(a.id)}: {one_line(a.where(), 2400)}",
        "",
        "Your edit will be sent instead (recorded as edited by you).",
        *sent_write(edited),
        f"  SHA-256: {edited.digest()}",
        f"  (the write waiting for approval has SHA-256 {a.digest})",
    ]


def handoff_details(r: Strike) -> list[str]:
    """A waiting hand-off in full: what to post by hand, where, and how to say it is done."""
    h = handoff_ref(r.id)
    lines = [
        f"Hand-off {h}: {r.status}, {r.action} on {r.platform} since {iso(r.created_at)}",
        f"  asked by: {who(r.principal)}",
        f"  where:    {one_line(r.write.where(), 2400)}",
        f"  why:      {one_line(r.reason, 300)}",
    ]
    if r.claimed_at:
        lines.append(f"  claimed:  {claim_note(r)}")
    lines += ["", "Post exactly this by hand:", *[f"  link: {link(u)}" for u in r.write.links]]
    lines += sent_text(r.title, r.content)
    lines += [
        "",
        f"Then: gwanjong review done {h} --url <the link of your post>"
        f"   |   not posting it: gwanjong review dismiss {h}",
    ]
    return lines
