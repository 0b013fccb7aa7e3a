"""`gwanjong doctor [--repair]`: what gwanjong uses and what is wrong with it, on one screen
(docs/use/install.md).

`--repair` exports every row and the journal's open entries to JSON first, then rebuilds a
damaged record carrying them over (`record/repair.py`). Exit 0: nothing wrong (or
repaired); 1: a one-line reason on stderr. Run it with the gateway stopped.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from gwanjong_gateway.cli.doctor.where import (
    config_source,
    database,
    state_source,
    versions,
)
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.record import repair
from gwanjong_gateway.record.journal import JOURNAL, Journal, Sent, replay_into
from gwanjong_gateway.record.records import open_store
from gwanjong_gateway.record.repair import Health, RecordCheck
from gwanjong_gateway.version import gwanjong_version

if TYPE_CHECKING:  # the probe (platform servers, FastMCP) loads only with --probe
    from gwanjong_gateway.cli.doctor.probe import Probe


def _size(n: int | None) -> str:
    if n is None:
        return "free space unknown"
    return f"{n / (1024 * 1024):.1f} MiB free"


def _writable(folder: Path) -> str:
    """ "" when a file can be made in ``folder``, else why not."""
    if not folder.exists():
        return ""  # made on first use
    probe = folder / ".gwanjong-doctor-probe"
    try:
        probe.write_bytes(b"x" * 4096)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return ""


def _server(name: str, config: GatewayConfig) -> str:
    p = config.platforms[name]
    if p.url:
        u = urlsplit(p.url)
        return f"url {u.scheme}://{u.hostname}{f':{u.port}' if u.port else ''}"  # no query, no user
    if p.command:
        found = shutil.which(p.command[0]) or Path(p.command[0]).exists()
        return f"command {p.command[0]}" + ("" if found else " (PROBLEM: not found on PATH)")
    from gwanjong_gateway.bundled import entry_point

    ep = entry_point(name)
    if ep is None or ep.dist is None:
        return "bundled (PROBLEM: its package is not installed here; reinstall gwanjong)"
    runs = "in-process" if p.isolation == "in-process" else "subprocess"
    return f"bundled {ep.dist.name} {ep.dist.version} ({runs})"


def problems(
    config: GatewayConfig, record: RecordCheck, free: int | None, unwritable: str
) -> list[str]:
    found: list[str] = []
    state = config.state_dir
    if unwritable:
        found.append(f"state_dir {state} cannot be written ({unwritable})")
    if free is not None and free < repair.LOW_SPACE_BYTES:
        found.append(f"the disk holding {state} is full ({_size(free)}): free space there")
    if record.health is Health.DAMAGED:
        found.append(
            f"the record is damaged ({record.problem}): stop gwanjong and run "
            "`gwanjong doctor --repair`"
        )
    elif record.health not in (Health.OK, Health.MISSING):
        found.append(f"the record is {record.health}: {record.problem}")
    return found


def report(
    config: GatewayConfig,
    config_path: Path | None,
    out: TextIO,
    source: str | None = None,
    probes: dict[str, Probe] | None = None,
) -> tuple[RecordCheck, list[str]]:
    state = config.state_dir
    free = repair.disk_free(state)
    unwritable = _writable(state)
    record = repair.check_record(config)
    entries = repair.open_entries(state)
    counts = ", ".join(f"{k} {v}" for k, v in sorted(record.counts.items())) or "no rows"
    detail = counts if record.health is Health.OK else record.problem
    place = record.location
    if record.engine == "postgresql" and (db := database(config.store.url)):
        place = f"{place}, database {db}"
    lines = [
        f"gwanjong {gwanjong_version()} doctor",
        f"  config     {source or config_source(config_path, None, {})}",
        f"  state_dir  {state} ({state_source(config)}; "
        f"{'cannot be written: ' + unwritable if unwritable else 'writable'}, {_size(free)})",
        f"  record     {record.engine} {place}: {record.health} ({detail})",
        f"  journal    {state / JOURNAL}: {len(entries)} open "
        f"{'entry' if len(entries) == 1 else 'entries'}"
        + (" (writes sent whose outcome the record may not know)" if entries else ""),
        f"  versions   {versions()}",
        "  platforms" + ("" if probes is not None else " (servers not started)"),
    ]
    found = problems(config, record, free, unwritable)
    for name in sorted(config.platforms):
        on = "on " if config.platforms[name].enabled else "off"
        checked = probes.get(name) if probes is not None else None
        said = f"; {checked.line()}" if checked is not None else ""
        server = _server(name, config)
        lines.append(f"    {name:<10} {on} {server}{said}")
        if "PROBLEM: " in server:
            found.append(f"platforms.{name}: {server.partition('PROBLEM: ')[2].rstrip(')')}")
    for name, checked in (probes or {}).items():
        if (problem := checked.problem(name)) is not None:
            found.append(problem)
        found += checked.exposed_problems()
    lines += ["problems:", *(f"  - {p}" for p in found)] if found else ["no problems found"]
    print("\n".join(lines), file=out)
    return record, found


def _replay(config: GatewayConfig, entries: list[Sent], now: float) -> int:
    """Put the journal's open writes into a healthy record; how many are still unsure."""
    with contextlib.closing(open_store(config)) as store:
        closed, unsure = replay_into(store, entries, now)
    with contextlib.suppress(OSError):
        Journal(config.state_dir).compact(closed)
    return unsure


def _fail(err: TextIO, why: str) -> int:
    print(f"gwanjong doctor: {why}", file=err)
    return 1


def run_repair(
    config: GatewayConfig, record: RecordCheck, export_to: Path | None, out: TextIO, err: TextIO
) -> int:
    state = config.state_dir
    now = time.time()
    entries = repair.open_entries(state)
    db = state / "gwanjong.db"
    paused: dict[str, str] = {}
    approvals: list[dict[str, Any]] = []
    if record.health is Health.OK:
        with contextlib.closing(open_store(config)) as store:
            rows = repair.salvage_store(store)
            approvals = repair.approvals_of(store)
    elif record.engine == "sqlite":
        rows, paused, approvals = repair.salvage_sqlite(db)
    else:
        rows = []
    try:
        exported = repair.export(
            rows,
            entries,
            paused,
            repair.export_places(state, export_to),
            record.location,
            now,
            approvals,
        )
    except FileExistsError as exc:
        return _fail(
            err,
            f"{exc.filename} already exists and an export never replaces a file: pick another "
            "--export path, or move that file away, then run it again (nothing was changed).",
        )
    except OSError as exc:
        return _fail(err, f"could not export the record anywhere ({exc}); nothing was changed.")
    print(
        f"exported {len(rows)} records and {len(entries)} open journal entries to {exported}",
        file=out,
    )
    free = repair.disk_free(state)
    if record.health is Health.OK and free is not None and free < repair.LOW_SPACE_BYTES:
        record.health = Health.FULL
    if record.health in (Health.OK, Health.MISSING):
        try:
            unsure = _replay(config, entries, now)
        except Exception as exc:
            return _fail(
                err,
                f"could not put the journal's writes into the record "
                f"({type(exc).__name__}: {exc}); everything is in {exported}.",
            )
        print(f"the record is healthy; {unsure} unsure writes from the journal are in it", file=out)
        return 0
    if record.health is Health.FULL:
        return _fail(
            err,
            f"the record is intact but the disk holding {state} is full: free "
            "space there and run `gwanjong doctor --repair` again (nothing was changed; "
            f"everything is in {exported}).",
        )
    if record.health is not Health.DAMAGED or record.engine != "sqlite":
        return _fail(err, f"the record is {record.health}: {record.problem} (nothing was changed).")
    try:
        done = repair.rebuild_sqlite(db, rows, paused, entries, now, approvals)
    except Exception as exc:
        return _fail(
            err,
            f"could not rebuild the record ({type(exc).__name__}: {exc}); the "
            f"old one is untouched and everything is in {exported}. Free space, then run it again.",
        )
    with contextlib.suppress(OSError):  # the journal's writes are in the new record now
        Journal(state).compact({e.id for e in entries})
    print(
        f"rebuilt {db}: {done.carried} records carried over"
        + (f" ({len(done.skipped)} unreadable, in the export)" if done.skipped else "")
        + f", {done.restored} unsure writes restored from the journal; the old file is {done.broken}",
        file=out,
    )
    return 0


def run_doctor(
    config: GatewayConfig,
    config_path: Path | None,
    fix: bool = False,
    export_to: Path | None = None,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    source: str | None = None,
    start_servers: bool = False,
) -> int:
    """`start_servers`: start each enabled platform's server and ask it (doctor/probe.py);
    the CLI does unless --offline or --repair (run from a thread with no event loop)."""
    probes = None
    if start_servers and not fix:
        import anyio

        from gwanjong_gateway.cli.doctor.probe import probe

        # A server that cannot connect logs why at WARNING; doctor says it in its own lines.
        quiet = [logging.getLogger(n) for n in ("gwanjong_gateway", "gwanjong_shared")]
        levels = [q.level for q in quiet]
        for q in quiet:
            q.setLevel(logging.ERROR)
        try:
            probes = anyio.run(probe, config)
        finally:
            for q, level in zip(quiet, levels, strict=True):
                q.setLevel(level)
    record, found = report(config, config_path, out, source, probes)
    if fix:
        return run_repair(config, record, export_to, out, err)
    if found:
        print(f"gwanjong doctor: {found[0]}", file=err)
        return 1
    return 0
