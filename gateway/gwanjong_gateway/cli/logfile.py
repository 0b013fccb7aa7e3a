"""The optional rotating log file (`[gateway] log_file`), besides stderr."""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.paths import private_dir, private_file
from gwanjong_shared.kit.logs import LineFormatter, configure_logging
from gwanjong_shared.kit.quiet import quiet_fastmcp

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3


class _PrivateRotatingFile(RotatingFileHandler):
    """Each log file (the first and every one after a rollover) is created 0600."""

    def _open(self) -> Any:
        private_file(Path(self.baseFilename))
        return super()._open()


def add_log_file(
    config: GatewayConfig, max_bytes: int = MAX_BYTES, backups: int = BACKUPS
) -> Path | None:
    """Also log to a rotating file (same level and masking as stderr): `[gateway] log_file`
    as given if absolute, else inside the state dir. Returns its path (None: no file)."""
    name = config.gateway.log_file.strip()
    if not name:
        return None
    path = config.state_dir / Path(name).expanduser()  # an absolute one stays as it is
    private_dir(path.parent)
    handler = _PrivateRotatingFile(
        path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8", delay=True
    )
    handler.setFormatter(LineFormatter())  # the stderr line: one line, cleaned, masked
    logging.getLogger().addHandler(handler)
    return path


def log_as_asked(config: GatewayConfig, level: str) -> None:
    """A long-running command's logs: stderr at ``level`` (FastMCP's banner and chatter
    quieted), and the log file when gateway.toml names one."""
    quiet_fastmcp()
    configure_logging(level)
    add_log_file(config)
