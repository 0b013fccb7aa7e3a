"""Charts as server-rendered SVG bars, no script. Labels are escaped here and numbers
formatted here: nothing else enters the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from markupsafe import Markup

#: kinds of error in a fixed order, each its own colour class (console.css)
PALETTE = 6
ROW = 26
LABEL_CHARS = 28
#: room per label character: wider than most fonts draw one at the chart's 15 px
CHAR_W = 9.5
BAR_W = 300
VALUE_W = 150


@dataclass(frozen=True)
class Bar:
    label: str
    parts: list[tuple[str, float]]  # (series name, value); one part: a plain bar
    note: str = ""  # shown after the bar (default: the total)


def bars(
    title: str,
    rows: list[Bar],
    unit: str = "",
    top: float | None = None,
    legend: bool | None = None,
) -> Markup:
    """A horizontal bar chart (stacked when a row has parts); ``top``: a full bar's value."""
    series = list(dict.fromkeys(name for r in rows for name, _ in r.parts))
    if top is None:
        top = max((sum(v for _, v in r.parts) for r in rows), default=0.0) or 1.0
    legend_h = ROW if (len(series) > 1 if legend is None else legend and series) else 0
    height = legend_h + ROW * max(len(rows), 1) + 6
    label_w = CHAR_W * max((len(r.label[:LABEL_CHARS]) for r in rows), default=0) + 8
    width = label_w + BAR_W + VALUE_W
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width:g} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet"><title>{escape(title)}</title>'
    ]
    if legend_h:
        x = 0
        for i, name in enumerate(series):
            out.append(
                f'<rect class="s{i % PALETTE}" x="{x}" y="6" width="12" height="12"/>'
                f'<text x="{x + 16}" y="16">{escape(name[:24])}</text>'
            )
            x += 20 + 8 * min(len(name), 24)
    if not rows:
        out.append(f'<text x="0" y="{legend_h + 17}">nothing recorded</text>')
    for n, r in enumerate(rows):
        y = legend_h + n * ROW
        out.append(f'<text x="0" y="{y + 17}">{escape(r.label[:LABEL_CHARS])}</text>')
        x = label_w
        for name, value in r.parts:
            w = BAR_W * value / top
            if w > 0:
                i = series.index(name)
                out.append(
                    f'<rect class="s{i % PALETTE}" x="{x:.1f}" y="{y + 5}" '
                    f'width="{max(w, 1):.1f}" height="16"><title>{escape(name)}: '
                    f"{_num(value)}{escape(unit)}</title></rect>"
                )
                x += w
        note = r.note or f"{_num(sum(v for _, v in r.parts))}{unit}"
        out.append(f'<text x="{x + 6:.1f}" y="{y + 17}">{escape(note[:30])}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _num(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"
