"""A command run at a real pseudo-terminal (POSIX `pty`): what a person at a shell gives
it. Its stdin and stdout are the pty (so `isatty()` is true), stderr a pipe read apart.
The test reads the screen, types, and waits for the exit; deadlines only catch a hang."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import termios
import threading
from collections.abc import Callable
from types import TracebackType

import anyio

from tests.mcp import until

#: generous: a deadline here only catches a hang, never a slow machine
HANG_S = 180.0


def _take_the_terminal() -> None:
    """In the child, after setsid: the pty becomes its controlling terminal, as a shell's
    is, so /dev/tty (getpass's hidden input) is the pty too."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyCommand:
    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.env = env
        self._out = bytearray()
        self._err = bytearray()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.master = -1

    def __enter__(self) -> PtyCommand:
        import pty

        self.master, slave = pty.openpty()
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=slave,
                stdout=slave,
                stderr=subprocess.PIPE,
                env=self.env,
                start_new_session=True,  # its own group: a kill ends it and its children
                preexec_fn=_take_the_terminal,
            )
        finally:
            os.close(slave)
        assert self.proc.stderr is not None
        self._start(self._read, self.master, self._out)
        self._start(self._read, self.proc.stderr.fileno(), self._err)
        return self

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _read(self, fd: int, into: bytearray) -> None:
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:  # EIO: the command closed its end of the pty
                return
            if not data:
                return
            with self._lock:
                into += data

    def screen(self) -> str:
        with self._lock:
            return self._out.decode("utf-8", errors="replace")

    def errors(self) -> str:
        with self._lock:
            return self._err.decode("utf-8", errors="replace")

    async def wait_for(self, text: str, seconds: float = HANG_S) -> None:
        """Until ``text`` is on the screen (fails if the command ends first)."""
        assert self.proc is not None
        with anyio.fail_after(seconds):
            while text not in self.screen():
                if self.proc.poll() is not None:
                    await anyio.sleep(0.2)  # the last output may still be in flight
                    if text in self.screen():
                        return
                    raise AssertionError(
                        f"exited {self.proc.returncode} before showing {text!r}:\n"
                        f"{self.screen()}\n{self.errors()}"
                    )
                await anyio.sleep(0.05)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def exit_code(self, seconds: float = HANG_S) -> int:
        assert self.proc is not None
        proc = self.proc
        await until(lambda: proc.poll() is not None, seconds, every=0.05)
        await anyio.to_thread.run_sync(self._join)
        return self.proc.returncode

    def _join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=10)

    def kill(self) -> None:
        """SIGKILL the command and everything it started (its own process group)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()
        self._join()
        os.close(self.master)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
