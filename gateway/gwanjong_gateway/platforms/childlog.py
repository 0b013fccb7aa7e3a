"""A spawned platform server's stderr, kept in a file so a failure can say why.

Each start truncates `<state_dir>/logs/<platform>.log`; when the server fails to start,
hangs or dies, its last stderr lines become the reason shown by `status` and errors
(with every value of its environment that could be a secret blanked out).
"""

from __future__ import annotations

import re
from pathlib import Path

from gwanjong_gateway.paths import private_file
from gwanjong_shared.contract.untrusted import one_line

TAIL_LINES = 3
TAIL_CHARS = 300
# A variable named as a credential is masked from 4 characters on (as the servers' own logs,
# kit/logs.register_secret): a short password is still one; below 4 a mask would blank
# common words, and such a value is guessed in no time anyway. Any other variable (a flag,
# a count, languages, a handle) is masked from 8 characters on, in case it holds a secret
# under another name; shorter ones stay readable.
CREDENTIAL_MIN, OTHER_MIN = 4, 8
_CREDENTIAL = re.compile(r"KEY|SECRET|TOKEN|PASS|AUTH|COOKIE|CREDENTIAL|HEADERS|PROXY", re.I)


def secret_values(env: dict[str, str]) -> list[str]:
    """The values of ``env`` to mask (the caller leaves out the ones known to be plain)."""
    return [
        v
        for k, v in env.items()
        if len(v) >= (CREDENTIAL_MIN if _CREDENTIAL.search(k) else OTHER_MIN)
    ]


def log_path(state_dir: Path, name: str) -> Path:
    return state_dir / "logs" / f"{name}.log"


def reset(path: Path) -> Path:
    """Empty the log (created 0600, in a 0700 dir: it may hold what the server said)."""
    return private_file(path, truncate=True)


def tail(path: Path | None, secrets: list[str]) -> str:
    """The last few non-empty stderr lines, one line, secrets blanked; "" if none."""
    if path is None or not path.exists():
        return ""
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 8192))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not _framing(line)]
    # the server may quote a platform's text, and status shows this to the model: cleaned
    # (masked before and after, so no hidden character can split a secret past the mask)
    out = masked(" | ".join(lines[-TAIL_LINES:]), secrets)
    return masked(one_line(out[-TAIL_CHARS * 2 :], TAIL_CHARS * 2), secrets)[-TAIL_CHARS:]


def masked(text: str, secrets: list[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):
        if len(value) >= CREDENTIAL_MIN:
            text = text.replace(value, "***")
    return text


def _framing(line: str) -> bool:
    """A Python traceback's scaffolding: the last line (the exception) is what says why."""
    stripped = line.strip()
    return stripped.startswith(("Traceback (most recent call last)", 'File "')) or set(
        stripped
    ) <= {"^", "~", " "}
