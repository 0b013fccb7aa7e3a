"""The one-approval page as HTML: every value from the platform, the model or the record
is escaped and drawn by `contract.visible` (each hidden character a visible mark, counted,
nothing cut: a long text scrolls in its box); a link is a link only when it is http(s).
The page loads nothing and runs no script (see `page.CSP`)."""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from gwanjong_gateway.rules.approvals import Approval, ApprovalStatus, iso
from gwanjong_shared.contract.visible import has_hidden, show


def visible(text: str) -> str:
    """``text`` escaped, each hidden character a ⟦U+XXXX⟧ mark, long blank runs counted."""
    return html.escape(show(text).text, quote=True)


def web_link(url: str) -> str:
    """An http(s) link opening with no opener and no referrer; anything else as text."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        scheme = ""
    if scheme in ("http", "https") and not has_hidden(url) and url.isprintable():
        return (
            f'<a href="{html.escape(url, quote=True)}" rel="noopener noreferrer" '
            f'target="_blank">{visible(url)}</a>'
        )
    return f"<code>{visible(url)}</code> (not a web link)" if url else "(none)"


def tags_html(tags: tuple[str, ...]) -> str:
    """A new post's tags, each in its own box (so a space or a comma inside shows)."""
    if not tags:
        return "(none)"
    return " ".join(f'<code class="tag">{visible(t)}</code>' for t in tags)


def page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;max-width:44em;margin:2em auto;padding:0 1em}"
        ".text{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #999;"
        "padding:.8em;background:#f6f6f6;unicode-bidi:isolate;max-height:28em;overflow:auto}"
        "textarea{width:100%;min-height:12em;font:inherit}"
        "dt{font-weight:bold}dd{margin:0 0 .6em 0}.error{color:#b00}.done{color:#060}"
        "button{font-size:1.1em;margin:.8em .8em 0 0}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


def _facts(approval: Approval, now: float) -> str:
    rows = [
        ("What", visible(approval.where())),
        ("Asked by", visible(approval.principal or "the local user")),
        ("Target", web_link(approval.target_url) if approval.action != "post" else "a new post"),
    ]
    write = approval.write
    rows.append(("Sent as", f"{visible(write.account or 'our account')}, {write.visibility}"))
    if approval.title:
        rows.append(("Title", f'<span class="text">{visible(approval.title)}</span>'))
    if approval.action == "post":
        rows.append(("Tags", tags_html(write.tags)))
    rows.append(("Length", f"{len(approval.text)} characters (disclosure footer included)"))
    state = approval.status_at(now)
    if state is ApprovalStatus.PENDING:
        rows.append(("Expires", html.escape(iso(approval.expires_at))))
    else:
        rows.append(("Status", html.escape(str(state))))
    items = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    return f"<dl>{items}</dl>"


def _exact(approval: Approval, heading: str = "The exact text that will be sent") -> str:
    """The whole text (it scrolls when long, nothing is cut), its hidden characters marked
    and counted, the title's too."""
    warnings = [
        f"{what}: {s.warning()}"
        for what, s in (("Title", show(approval.title)), ("Text", show(approval.text)))
        if s.hidden
    ]
    warn = "".join(f'<p class="error" role="alert">{html.escape(w)}</p>' for w in warnings)
    return (
        f"<h2>{html.escape(heading)}</h2>{warn}"
        f'<div class="text" id="exact">{visible(approval.text) or "(no text: an upvote)"}</div>'
        "<p>That is the whole text, to its last character: a long one scrolls in its box.</p>"
    )


def review_page(
    approval: Approval, now: float, csrf: str, problem: str = "", text: str | None = None
) -> str:
    """A pending approval: the facts, the exact text, an edit box (``text``: the person's
    own edit, kept when a decision was refused), Approve and Decline."""
    error = f'<p class="error">{html.escape(problem)}</p>' if problem else ""
    edit = ""
    if approval.text:
        # A leading newline after <textarea> is dropped by the HTML parser: give it one.
        edit = (
            "<h2>Edit before approving (optional)</h2><p>Approve sends this box as it is; "
            "keep the disclosure footer at the end.</p>"
            f'<textarea name="text" spellcheck="true">\n{html.escape(approval.text if text is None else text)}</textarea>'
        )
    form = (
        f'<form method="post"><input type="hidden" name="csrf" value="{csrf}">{edit}'
        '<p><button type="submit" name="decision" value="approve">Approve and send</button>'
        '<button type="submit" name="decision" value="decline">Decline: send nothing'
        "</button></p></form>"
    )
    intro = (
        "<p>gwanjong asks before it writes in your name. Nothing is sent until you approve; "
        "declining sends nothing.</p>"
    )
    body = intro + error + _facts(approval, now) + _exact(approval) + form
    return page(f"gwanjong: approval {approval.id}", body)


def decided_page(
    approval: Approval,
    now: float,
    message: str,
    url: str = "",
    label: str = "Posted:",
    failed: bool = False,
) -> str:
    """An approval no longer waiting (or the outcome of this very decision)."""
    link = f"<p>{html.escape(label)} {web_link(url)}</p>" if url else ""
    mood = "error" if failed else "done"
    body = (
        f'<p class="{mood}">{visible(message)}</p>{link}'
        + _facts(approval, now)
        + _exact(approval, "The text of this approval")
        + "<p>You may close this tab.</p>"
    )
    return page(f"gwanjong: approval {approval.id}", body)
