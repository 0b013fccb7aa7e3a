"""One client's config: plan the change to our entry, then write it safely: a non-JSON file
is refused, the original backed up before the first change, the new text written
atomically and read back (our entry as planned, everything else as before, else the old
text returns). A file that changed while we worked is not overwritten.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, cast

from gwanjong_gateway.cli.link import jsonc
from gwanjong_gateway.cli.link.jsonc import JsonError, Member, Node, indent_unit, insert, parse
from gwanjong_gateway.cli.link.jsonc import remove as remove_member
from gwanjong_gateway.cli.link.jsonc import replace as replace_member
from gwanjong_gateway.paths import replace_private

BACKUP_SUFFIX = ".gwanjong-backup"


class Outcome(StrEnum):
    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REMOVED = "removed"
    ABSENT = "not there"  # --remove, and there was nothing to remove
    REFUSED = "refused"


class LinkError(Exception):
    """Why a config was left untouched, worded as what to do next."""


@dataclass
class Plan:
    path: Path
    before: str | None  # None: no file yet
    after: str
    outcome: Outcome
    #: what our entry must read back as (None: absent)
    entry: Any = None

    def diff(self, keep: frozenset[str] = frozenset()) -> str:
        """The change as a unified diff, every string value but ``keep``'s masked."""
        old = jsonc.masked(self.before or "", keep).splitlines(keepends=True)
        new = jsonc.masked(self.after, keep).splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(old, new, f"{name} (now)", f"{name} (after)")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _read(path: Path) -> str | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LinkError(f"{path}: cannot be read ({exc.strerror}); nothing was changed") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LinkError(
            f"{path}: is not UTF-8 text; nothing was changed. Open it in the client, save it, "
            "and run `gwanjong link` again."
        ) from None


def _root(path: Path, text: str) -> Node:
    try:
        root = parse(text)
    except JsonError as exc:
        raise LinkError(
            f"{path}: not valid JSON ({exc}); nothing was changed. Fix it (or move it aside) "
            "and run `gwanjong link` again."
        ) from None
    if not root.is_object:
        raise LinkError(f"{path}: holds no JSON object at the top; nothing was changed.")
    return root


def _container(path: Path, root: Node, key: str) -> Node | None:
    member = root.member(key)
    if member is None:
        return None
    if not member.node.is_object:
        raise LinkError(
            f'{path}: "{key}" is not an object (a map of server names); nothing was changed.'
        )
    return member.node


def _ours(path: Path, text: str, servers: Node, key: str, name: str) -> Member | None:
    """Our entry in ``servers``; LinkError when the object holds it more than once (a JSON
    reader keeps only the last, so editing one would leave the other for the client)."""
    found = [m for m in servers.members if m.key == name]
    if len(found) < 2:
        return found[0] if found else None
    lines = [str(text.count("\n", 0, m.key_start) + 1) for m in found]
    times = "twice" if len(found) == 2 else f"{len(found)} times"
    raise LinkError(
        f'{path}: "{key}" holds "{name}" {times} (lines {", ".join(lines[:-1])} and '
        f"{lines[-1]}); nothing was changed. Keep one of them (delete the others), then run "
        "`gwanjong link` again."
    )


def plan_add(path: Path, key: str, name: str, entry: dict[str, Any]) -> Plan:
    """Our entry added, or brought up to date (keys of it we do not manage are kept)."""
    before = _read(path)
    if before is None or not before.strip():
        doc = {key: {name: entry}}
        return Plan(path, before, fresh_text(doc), Outcome.ADDED, entry)
    root = _root(path, before)
    unit = indent_unit(before, root)
    servers = _container(path, root, key)
    if servers is None:
        after = insert(before, root, key, {name: entry}, unit)
        return Plan(path, before, after, Outcome.ADDED, entry)
    ours = _ours(path, before, servers, key, name)
    if ours is None:
        after = insert(before, servers, name, entry, unit)
        return Plan(path, before, after, Outcome.ADDED, entry)
    current: Any = ours.node.value
    if isinstance(current, dict) and {"url", "serverUrl", "httpUrl"} & current.keys():
        raise LinkError(  # merged with our command, the entry would name two servers
            f'{path}: "{name}" connects to a URL, not a command; nothing was changed. To run '
            "the command instead, `gwanjong link --remove` it first."
        )
    wanted: Any = (
        {**cast("dict[str, Any]", current), **entry} if isinstance(current, dict) else entry
    )
    if wanted == current:
        return Plan(path, before, before, Outcome.UNCHANGED, wanted)
    after = replace_member(before, ours, wanted, unit)
    return Plan(path, before, after, Outcome.UPDATED, wanted)


def plan_remove(path: Path, key: str, name: str) -> Plan:
    """Our entry gone; so is its container when we made it (the backup shows none)."""
    before = _read(path)
    if before is None or not before.strip():
        return Plan(path, before, before or "", Outcome.ABSENT)
    root = _root(path, before)
    servers = _container(path, root, key)
    if servers is None or _ours(path, before, servers, key, name) is None:
        return Plan(path, before, before, Outcome.ABSENT)
    if len(servers.members) == 1 and not _had_container(path, key):
        return Plan(path, before, remove_member(before, root, key), Outcome.REMOVED)
    return Plan(path, before, remove_member(before, servers, name), Outcome.REMOVED)


def _had_container(path: Path, key: str) -> bool:
    """Whether the file had `key` before we first changed it (True when unknown)."""
    try:
        text = backup_path(path).read_text(encoding="utf-8")
        root = parse(text)
    except (OSError, UnicodeDecodeError, JsonError):
        return True
    return not root.is_object or root.member(key) is not None


def fresh_text(doc: dict[str, Any]) -> str:
    """A new config file holding only ``doc``."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _object(value: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def _split(text: str, key: str, name: str) -> tuple[Any, dict[str, Any]]:
    """Our entry, and the document without it (nor a container it was alone in)."""
    doc = dict(_object(parse(text).value)) if text.strip() else {}
    servers = dict(_object(doc.get(key)))
    entry = servers.pop(name, None)
    if servers:
        doc[key] = servers
    elif isinstance(doc.get(key), dict):
        del doc[key]
    return entry, doc


def write(plan: Plan, key: str, name: str) -> Path | None:
    """Write the plan (backup first, atomic), read it back; the backup made, if any."""
    path = plan.path
    if _read(path) != plan.before:
        raise LinkError(f"{path}: changed while gwanjong link was working; run it again.")
    made = None
    target = path.resolve() if path.is_symlink() else path
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o600
    if not mode & stat.S_IWUSR:  # the person's choice: a rename would pass it by
        raise LinkError(
            f"{path}: is read-only (mode {mode:04o}); nothing was changed. To let gwanjong "
            f"add its entry, run `chmod u+w {path}` and `gwanjong link` again; or add it "
            "yourself (`gwanjong link --dry-run` shows it)."
        )
    try:
        if plan.before is not None and not backup_path(path).exists():
            made = _backup(path, plan.before)
        replace_private(target, plan.after, mode)
    except OSError as exc:  # a read-only place: a file another tool manages (Nix, dotfiles)
        if made is not None:
            made.unlink()
        raise LinkError(
            f"{path}: cannot be written ({exc.strerror or exc}); nothing was changed. Close "
            "a program that holds it open (Windows locks it), or if another tool manages it, "
            "add the entry there (`gwanjong link --dry-run` shows it)."
        ) from None
    try:
        _check(path, plan, key, name)
    except LinkError:
        if plan.before is not None:  # put the person's file back as it was
            replace_private(target, plan.before, mode)
        raise
    return made


def _check(path: Path, plan: Plan, key: str, name: str) -> None:
    text = _read(path) or ""
    try:
        entry, rest = _split(text, key, name)
        _, rest_before = _split(plan.before or "", key, name)
    except JsonError as exc:
        raise LinkError(
            f"{path}: read back as invalid JSON ({exc}); the old file is back."
        ) from None
    if entry != plan.entry or rest != rest_before:
        raise LinkError(f"{path}: did not read back as written; the old file is back.")


def _backup(path: Path, text: str) -> Path:
    backup = backup_path(path)
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        out.write(text)
    return backup
