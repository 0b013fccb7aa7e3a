"""A length count on hostile text, same run: X's weighted count (and Mastodon's) of a
4,000-character text of many dots ("a.a.a…", which a steered draft can hold) against a
normal 280-character post with links. validate and every write count the text on the
server's event loop, so the ratio should stay small (a backtracking URL pattern once made it
thousands).

    uv run python -m bench.wire.lengths [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

from bench.common import table, timed
from gwanjong_mastodon.length import status_length
from gwanjong_twitter.weighted import weighted_length

NORMAL = (
    "Shipping the fix today: https://example.com/notes/2026?ref=x and the write-up at "
    "blog.example.org/post, thanks @someone for the report! More soon #release "
)
NORMAL = (NORMAL * 3)[:280]
HOSTILE = {
    "4,000 characters of dots (a.a.a…)": "a." * 2000,
    "a URL over a 4,000-character domain of dots": "https://" + "a." * 1995 + "com",
}


def median_ms(count: Callable[[str], int], text: str, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = timed()
        count(text)
        samples.append((timed() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    counts: dict[str, Callable[[str], int]] = {
        "X weighted": weighted_length,
        "Mastodon": lambda text: status_length(text, "chars", 23),
    }
    rows = []
    for name, count in counts.items():
        base = median_ms(count, NORMAL, args.rounds)
        for label, text in HOSTILE.items():
            took = median_ms(count, text, args.rounds)
            rows.append([name, label, f"{took:.1f}", f"{base:.2f}", f"{took / base:.0f}"])
    table(
        f"length count (ms, median of {args.rounds}): hostile text vs a normal 280-character post",
        ["count", "text", "hostile", "normal", "ratio"],
        rows,
    )


if __name__ == "__main__":
    main()
