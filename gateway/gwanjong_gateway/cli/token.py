"""`gwanjong token add|revoke|list`: issue and withdraw the team's bearer tokens."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gwanjong_gateway.cli.options import command
from gwanjong_gateway.config.load import load
from gwanjong_gateway.team.access_tokens import TokenError, store_for


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"gwanjong: {text}\n")


def _run(args: argparse.Namespace) -> int:
    config, _ = load(args.config)
    store = store_for(config.state_dir)
    try:
        if args.token_command == "add":
            token = store.add(args.name)
            _out(token)
            note = "" if config.auth.mode == "tokens" else ' Set [auth] mode = "tokens" to use it.'
            _err(
                f"token for {args.name!r} issued; it is shown only this once "
                f"(only its hash is kept in {store.path}). Send it as "
                f"`Authorization: Bearer <token>`.{note}"
            )
            return 0
        if args.token_command == "revoke":
            if not store.revoke(args.name):
                _err(f"{args.name!r} has no active token.")
                return 1
            _err(f"token of {args.name!r} revoked.")
            return 0
        entries = store.entries()
    except TokenError as exc:
        _err(str(exc))
        return 2
    if args.json:
        rows: list[dict[str, Any]] = [
            {"name": e.name, "created": e.created, "revoked": e.revoked} for e in entries
        ]
        _out(json.dumps(rows, indent=2))
    elif not entries:
        _out("no tokens; issue one with `gwanjong token add NAME`")
    else:
        for e in entries:
            _out(f"{e.name}\tcreated {e.created}" + (f"\trevoked {e.revoked}" if e.revoked else ""))
    return 0


def add_token_commands(sub: Any) -> None:
    """Register `token` on the CLI's subparsers."""
    t = command(sub, "token", "issue, revoke and list bearer tokens for HTTP clients", _run)
    tsub = t.add_subparsers(dest="token_command", required=True, help="what to do")
    add = command(tsub, "add", "issue a token for NAME and print it once", _run)
    add.add_argument("name", help="who the token is for (a person or a client)")
    revoke = command(tsub, "revoke", "revoke NAME's token at once", _run)
    revoke.add_argument("name", help="whose token to revoke")
    lst = command(tsub, "list", "names and dates (never the tokens)", _run)
    lst.add_argument("--json", action="store_true", help="print JSON instead of lines")
