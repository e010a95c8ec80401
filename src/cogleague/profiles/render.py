"""Profiles as text tables (CLI), HTML rows and a plot (league reports)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def cell(trait: Mapping[str, Any], fmt: str = "{:.2f}") -> str:
    """``0.93 [0.70, 0.99] yes`` — value, interval, verdict (n = 0: ``—``)."""
    if trait.get("value") is None:
        return "—"
    text = fmt.format(trait["value"])
    if trait.get("low") is not None and trait.get("high") is not None:
        text += f" [{fmt.format(trait['low'])}, {fmt.format(trait['high'])}]"
    if trait.get("verdict"):
        text += f" {trait['verdict']}"
    return text


def markdown_table(profiles: Sequence[Mapping[str, Any]]) -> str:
    """One row per policy, one column per trait (the league report's and the docs' table)."""
    if not profiles:
        return ""
    labels = [t["label"] for t in profiles[0]["traits"]]
    lines = ["| policy | " + " | ".join(labels) + " |",
             "|---|" + "---|" * len(labels)]
    for p in profiles:
        lines.append(f"| {p['policy']} | " + " | ".join(cell(t) for t in p["traits"]) + " |")
    return "\n".join(lines)


def plot_profiles(profiles: Sequence[Mapping[str, Any]], path: Path, title: str) -> str:
    """Rate traits as dots with interval bars, one row per trait, one colour per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [t["trait"] for t in profiles[0]["traits"] if t["kind"] == "rate"]
    labels = {t["trait"]: t["label"] for t in profiles[0]["traits"]}
    fig, ax = plt.subplots(figsize=(9.0, max(2.4, 1.0 + 0.55 * len(rates))))
    step = 0.7 / max(1, len(profiles))
    for k, p in enumerate(profiles):
        by = {t["trait"]: t for t in p["traits"]}
        ys, xs, lo, hi = [], [], [], []
        for i, name in enumerate(rates):
            t = by.get(name)
            if t is None or t["value"] is None:
                continue
            ys.append(i - 0.35 + step * (k + 0.5))
            xs.append(t["value"])
            lo.append(t["value"] - (t["low"] if t["low"] is not None else t["value"]))
            hi.append((t["high"] if t["high"] is not None else t["value"]) - t["value"])
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", capsize=3, label=p["policy"])
    ax.set_yticks(range(len(rates)), [labels[r] for r in rates])
    ax.set_xlim(-0.02, 1.02)
    ax.invert_yaxis()
    ax.set_xlabel("share of observations (95% Wilson interval)")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
