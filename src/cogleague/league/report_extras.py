"""The report's sections for held-out comparisons, behaviour profiles and model costs."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cogleague.profiles.render import cell, markdown_table, plot_profiles


def _e(value: Any) -> str:
    return html.escape(str(value))


def _n(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def held_out_html(table: dict[str, Any]) -> str:
    section = table.get("held_out")
    if not section:
        return ""
    rows = []
    for r in section["rows"]:
        diff = _n(r["difference"])
        if r["low"] is not None:
            diff += f" <span class=level>[{r['low']:.2f}, {r['high']:.2f}]</span>"
        mark = " <b>gap</b>" if r["shows_gap"] else ""
        rows.append(f"<tr><td class=l>{_e(r['policy'])}</td><td>{_n(r['vs_public'])}</td>"
                    f"<td>{r['public_games']}</td><td>{_n(r['vs_held_out'])}</td>"
                    f"<td>{r['held_out_games']}</td><td>{diff}{mark}</td></tr>")
    return (f"<h3>Public vs held-out opponents</h3><p>{section['episodes']} evaluation "
            "episodes, each one public policy among held-out ones. Difference = held-out − "
            "public mean score, 95% bootstrap interval; <b>gap</b>: the interval excludes 0."
            "</p><table><tr><th class=l>policy</th><th>vs public</th><th>games</th>"
            "<th>vs held-out</th><th>games</th><th>difference [95% CI]</th></tr>"
            f"{''.join(rows)}</table>")


def profiles_html(groups: Sequence[dict[str, Any]], out_dir: Path) -> str:
    """Per game: the trait table (value [interval] verdict) and the plot; also profiles.md."""
    if not groups:
        return ""
    parts, markdown = [], []
    for g in groups:
        profiles = g["profiles"]
        slug = re.sub(r"[^a-z0-9]+", "-", g["game"].lower())
        image = plot_profiles(profiles, out_dir / f"profiles-{slug}.png",
                              f"{g['game']}: behaviour profiles ({g['episodes']} battery "
                              "episodes each)")
        head = "".join(f"<th>{_e(t['label'])}</th>" for t in profiles[0]["traits"])
        body = "".join(f"<tr><td class=l>{_e(p['policy'])}</td>"
                       + "".join(f"<td>{_e(cell(t))}</td>" for t in p["traits"]) + "</tr>"
                       for p in profiles)
        parts.append(f"<h2>Behaviour profiles · {_e(g['game'])}</h2><p>Each policy against "
                     f"the game's probe battery, {g['episodes']} episodes from seed {g['seed']}; "
                     "value [95% Wilson interval] and verdict (yes: the interval lies above "
                     "1/2, no: below, mixed: it straddles). Traits are defined in "
                     "docs/profiles.md.</p>"
                     f"<table><tr><th class=l>policy</th>{head}</tr>{body}</table>"
                     f'<div class=plots><img src="{_e(image)}" alt="{_e(image)}"></div>')
        markdown.append(f"## {g['game']}\n\n{markdown_table(profiles)}\n")
    (out_dir / "profiles.md").write_text("\n".join(markdown), encoding="utf-8")
    return "".join(parts)


def costs_html(doc: dict[str, Any]) -> str:
    costs = doc.get("costs")
    if not costs:
        return ""
    unit = f" ({_e(costs['currency'])})" if costs["currency"] else " (no price table: tokens only)"
    rows = "".join(f"<tr><td class=l>{_e(r['policy'])}</td><td class=l>{_e(r['model'])}</td>"
                   f"<td>{r['requests']}</td><td>{r['replayed']}</td><td>{r['input_tokens']}</td>"
                   f"<td>{r['output_tokens']}</td><td>{_e(r['cost'] or '—')}</td></tr>"
                   for r in costs["rows"])
    rows += (f"<tr><td class=l><b>league</b></td><td></td><td></td><td></td>"
             f"<td>{costs['total_input_tokens']}</td><td>{costs['total_output_tokens']}</td>"
             f"<td>{_e(costs['total_cost'] or '—')}</td></tr>")
    return (f"<h2>Model costs{unit}</h2><table><tr><th class=l>policy</th><th class=l>model"
            "</th><th>requests</th><th>replayed</th><th>input tokens</th><th>output tokens</th>"
            f"<th>cost</th></tr>{rows}</table>")
