"""FastMCP's own settings for our processes: its startup chatter, banner and update check are
noise on a stdio server's stderr. One definition, applied in-process to `fastmcp.settings`
(the environment is never changed) or handed to a spawned server as its environment.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

#: FastMCP setting -> value (as its environment variable would carry it)
QUIET: Mapping[str, str] = {
    "log_level": "WARNING",
    "show_server_banner": "false",
    "check_for_updates": "off",
    # plain "LEVEL: message" lines on stderr, not rich boxes and tracebacks
    "enable_rich_logging": "false",
}
#: the same settings as the environment of a spawned server (`FASTMCP_` prefix)
QUIET_ENV: Mapping[str, str] = {f"FASTMCP_{name.upper()}": v for name, v in QUIET.items()}


def quiet_fastmcp() -> None:
    """Apply QUIET to this process's FastMCP settings, except where its environment (or a
    FastMCP .env) chose a value: a FASTMCP_LOG_LEVEL=DEBUG still wins."""
    import fastmcp
    from fastmcp.utilities.logging import configure_logging

    settings = fastmcp.settings
    for name, value in QUIET.items():
        if name not in settings.model_fields_set:
            settings.set_setting(name, value)  # validated: "false" becomes False
    # FastMCP set its logger's level when it was imported, from the settings of that moment.
    configure_logging(level=settings.log_level)
    if settings.log_enabled:
        # ...and gave it a stderr handler of its own, which the root's never sees: its
        # lines (an unexpected tool error quotes the exception) were neither cleaned, nor
        # one line, nor masked, nor in the log file. They go to the root's handlers instead.
        fastmcp_log = logging.getLogger("fastmcp")
        for handler in fastmcp_log.handlers[:]:
            fastmcp_log.removeHandler(handler)
        fastmcp_log.propagate = True
    server_log = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(f, OrdinaryToolErrors) for f in server_log.filters):
        server_log.addFilter(OrdinaryToolErrors())


#: what FastMCP logs for a tool error it answers anyway (our tools answer errors as data)
_ORDINARY = ("Invalid arguments for tool", "Error calling tool")


class OrdinaryToolErrors(logging.Filter):
    """Drops FastMCP's line for an ordinary tool error (bad arguments, a ToolError): the
    caller gets the error as the answer, so stderr need not repeat it. An unexpected
    exception (logged with its traceback) still gets through."""

    def filter(self, record: logging.LogRecord) -> bool:
        ordinary = str(record.msg).startswith(_ORDINARY) and not record.exc_info
        return not ordinary
