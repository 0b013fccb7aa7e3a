"""Start a command after appending a line to a file: how a test counts the processes a stdio
client starts (`counted.py <file> <command...>`). On POSIX the command replaces this
process, so the client's pipes reach it untouched."""

from __future__ import annotations

import os
import subprocess
import sys

if __name__ == "__main__":
    tally, command = sys.argv[1], sys.argv[2:]
    with open(tally, "a", encoding="utf-8") as out:
        out.write(f"{os.getpid()}\n")
    if os.name == "posix":
        os.execv(command[0], command)
    sys.exit(subprocess.call(command))
