"""`gwanjong watch`: the watcher alone, for people who run the gateway only over stdio
(no long-running process of theirs polls the inbox and saved topics otherwise)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gwanjong_gateway.cli.options import command


def _watch(args: argparse.Namespace) -> int:
    from gwanjong_gateway.cli.logfile import log_as_asked
    from gwanjong_gateway.cli.serve_loop import run_until_signal
    from gwanjong_gateway.config.load import load
    from gwanjong_gateway.gateway import Gateway
    from gwanjong_gateway.notify.background import start_notifier
    from gwanjong_gateway.watch.watcher import Watcher, notifying

    config, path = load(args.config)
    if not config.watch.enabled:
        print(
            f"gwanjong watch: [watch] is off in {path}; set `enabled = true` there, with "
            "`topics` if you want saved topics watched (docs/use/watching.md)",
            file=sys.stderr,
        )
        return 2
    log_as_asked(config, args.log_level)
    gateway = Gateway(config)
    every = config.watch.every_s
    print(f"gwanjong watch: polling every {every:g} s; Ctrl-C stops", file=sys.stderr)

    async def watch() -> None:
        notifier = start_notifier(gateway)  # [notify]: what is found is told, too
        try:
            await Watcher(gateway, notifying(gateway)).run_forever()
        finally:
            if notifier is not None:
                await notifier.stop()

    run_until_signal(watch, gateway.aclose)
    return 0


def add_watch(sub: Any) -> None:
    command(
        sub,
        "watch",
        "watch the inbox and saved topics ([watch] in gateway.toml)",
        _watch,
        serving=False,
    )
