"""`gwanjong history`: the strike record as plain text that fits the terminal (80 columns,
or a pipe) or as JSON, and `--resolve` for a person to settle a write that reading back
cannot prove. Every text is drawn by the one renderer (`contract.visible`): what the model
or a platform wrote reaches the terminal with each hidden character a visible mark, never
an escape sequence."""

from __future__ import annotations

import shutil
import sqlite3
import sys
import textwrap
import time
from contextlib import closing
from typing import Any, TextIO, cast

from gwanjong_gateway.cli.review.view import claim_note, escaped_json
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.extras import MissingExtra
from gwanjong_gateway.record.records import Records, open_store, store_url
from gwanjong_gateway.record.sql.pg_errors import describe, redact, where
from gwanjong_gateway.record.store import BUSY_TIMEOUT_S, SchemaError, StrikeStore
from gwanjong_gateway.rules.ledger import RESOLVABLE, UNSETTLED, Strike, StrikeStatus
from gwanjong_shared.contract.visible import line as one_line
from gwanjong_shared.contract.visible import link, plain, show

MIN_WIDTH, MAX_WIDTH = 60, 120


def format_strike(r: Strike, width: int) -> list[str]:
    """Two or three lines per strike: the facts on one, then where and why, indented."""
    p = r.public()
    head = f"#{r.id:<4} {p['at'][:16].replace('T', ' ')}  {r.platform:<8} {r.action:<15} {r.status}"
    if r.approver:
        head += f" ({r.approver})"
    if r.principal:
        head += f" by {one_line(r.principal, 200)}"  # an identity provider's text
    if r.confirmed_by:
        head += f" confirmed by {one_line(r.confirmed_by, 200)}"
    lines = textwrap.wrap(head, width, subsequent_indent="      ") or [head]
    where = r.result_url or p["target"]
    if where:
        # a URL is never broken (it must stay clickable); it may exceed a narrow terminal
        lines.append("      " + link(where))  # where it really goes, if not plain
    if r.reason:
        more = {"max_lines": 3, "placeholder": " [… more in the console]"}
        lines += _wrap(one_line(r.reason, 1000), width, "      ", "      ", **more)
    if r.status is StrikeStatus.HANDOFF:
        lines += _handoff_text(r, width)
    return lines


def _wrap(text: str, width: int, first: str, rest: str, **more: Any) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, **more)


def _handoff_text(r: Strike, width: int) -> list[str]:
    """What the person is to post by hand, in full (paragraphs kept), and how to confirm."""
    pad = "        "
    lines = ["      to post by hand:", *[f"{pad}link: {link(u)}" for u in r.write.links]]
    title, text = show(r.title), show(r.content)
    if r.title:
        lines += _wrap(f"title: {title.text}", width, pad, pad)
    for paragraph in text.text.split("\n"):
        lines += _wrap(paragraph, width, pad, pad) or [""]
    for s in (title, text):
        if s.hidden:
            lines += _wrap(f"WARNING: {s.warning()}", width, pad, pad)
    if not r.content:
        lines.append(f"{pad}(no text: a {r.action})")
    if r.claimed_at:  # the model's word, never proof: the hand-off still waits
        lines += _wrap(claim_note(r), width, "      ! ", pad)
    then = (
        f"then: gwanjong review done h{r.id} --url <their URL>, or gwanjong review "
        f"dismiss h{r.id} (the model's confirm_handoff closes it only when the gateway "
        "finds it on the platform)"
    )
    lines += _wrap(then, width, "      ", pad)
    return lines


def _fail(why: str) -> int:
    print(f"gwanjong: {why}", file=sys.stderr)
    return 2


def _open(config: GatewayConfig) -> StrikeStore | None:
    """The record, or None after saying on stderr why the database cannot be reached."""
    try:
        return open_store(config)
    except MissingExtra:
        raise  # main() says what to install
    except Exception as exc:
        if not config.store.url:
            if not isinstance(exc, sqlite3.Error | OSError | SchemaError):
                raise
            _fail(Records.for_config(config).said(exc))
            return None
        url = store_url(config)
        newer = isinstance(exc, SchemaError)
        message = (
            f"the strike record at {where(url)}: {exc}."
            if newer
            else describe(exc, url, BUSY_TIMEOUT_S)
        )
        if message is None:
            raise
        _fail(message)
        return None


def print_history(
    config: GatewayConfig,
    platform: str | None,
    status: StrikeStatus | str | None,
    limit: int,
    as_json: bool,
    out: TextIO | None = None,
    width: int | None = None,
    principal: str | None = None,
) -> int:
    """The record as the host's operator reads it: everyone's strikes (``principal``: one
    signed-in caller's only)."""
    out = out or cast(TextIO, sys.stdout)
    path = config.state_dir / "gwanjong.db"
    if not config.store.url and not path.exists():
        print(f"No strikes recorded yet ({path} does not exist).", file=out)
        return 0
    store = _open(config)
    if store is None:
        return 2
    with closing(store):
        wanted = StrikeStatus(status) if status else None
        rows = store.history(platform=platform, status=wanted, limit=limit, principal=principal)
    if as_json:
        document = [
            {
                **r.public(),
                "by": r.principal,
                "confirmed_by": r.confirmed_by,
                "content": r.content,
                "policy": r.policy,
            }
            for r in rows
        ]
        print(escaped_json(document), file=out)  # the same values; no raw control reaches out
        return 0
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns if out.isatty() else 80
    width = max(MIN_WIDTH, min(MAX_WIDTH, width))
    source = redact(config.store.url) if config.store.url else str(path)
    print(f"gwanjong history, newest first (UTC), from\n  {source}", file=out)
    for r in rows:
        print(plain("\n".join(format_strike(r, width))), file=out)
    if not rows:
        print("No strikes match.", file=out)
    return 0


def resolve(config: GatewayConfig, record: int, outcome: StrikeStatus | str) -> int:
    """Settle an unsure record by hand: `posted` keeps the target held for good, `failed`
    frees it (say so only after checking the platform)."""
    path = config.state_dir / "gwanjong.db"
    if not config.store.url and not path.exists():
        return _fail(f"no strike record at {path}.")
    status = StrikeStatus(outcome)
    if status not in RESOLVABLE:
        return _fail(f"--as takes {' or '.join(RESOLVABLE)}, not {status}.")
    store = _open(config)
    if store is None:
        return 2
    with closing(store):
        row = store.get(record)
        if row is None:
            return _fail(f"there is no record {record}.")
        if row.status not in UNSETTLED:
            return _fail(
                f"record {record} is {row.status}, not unknown or pending; nothing to resolve."
            )
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        store.settle(
            record,
            status,
            reason=f"resolved by a person as {status}",
            policy=[*row.policy, f"resolved by a person as {status} at {when}Z"],
        )
    print(f"record {record}: {status}")
    return 0
