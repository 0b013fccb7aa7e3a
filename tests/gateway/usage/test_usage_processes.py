"""Two processes open and write one usage.db together (the usage log and the spend
ledger, on a new file: both create and migrate it): both succeed, every row is written,
and `database is locked` never reaches either."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gwanjong_gateway.usage.log import UsageLog
from gwanjong_gateway.usage.spend_ledger import SpendLedger
from tests.gateway.usage.test_usage import row

pytestmark = pytest.mark.stdio  # spawns two processes


WRITER = """
import sys
from pathlib import Path
from gwanjong_gateway.usage.spend_ledger import SpendLedger
from gwanjong_gateway.usage.log import UsageLog

path = Path(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()  # both processes start on the new file together
log, ledger = UsageLog(path, count_tokens=len), SpendLedger(path)
for i in range(100):
    log.record_platform("devto", "search", "", 0.001)
    log.flush()  # a transaction per call: as many chances to collide as there can be
    ledger.settle(ledger.reserve("devto", "write_comment", "", 10, 10**9, 0.0), 5)
log.close()
ledger.close()
print("done", flush=True)
"""


def test_two_processes_write_one_usage_file_together(tmp_path: Path) -> None:
    path = tmp_path / "usage.db"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    said = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, said, strict=True):
        assert p.returncode == 0 and out == "done\n", err
        assert "locked" not in err and "unavailable" not in err, err
    log = UsageLog(path, count_tokens=len)
    log.ledger = SpendLedger(path)
    report = log.report()
    log.close()
    assert row(report, "devto", "search")["calls"] == 200  # no batch dropped
    days = report["spend"]["days"]
    assert sum(d["calls"] for d in days) == 200 and sum(d["in_flight"] for d in days) == 0
