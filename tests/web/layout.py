"""Rendered-text checks the browser tests share: words a layout split across lines."""

from __future__ import annotations

from typing import Any

SPLIT_WORDS = """(sel) => {
    const split = [];
    for (const cell of document.querySelectorAll(sel)) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of node.data.matchAll(/\\S+/g)) {
                const r = document.createRange();
                r.setStart(node, m.index);
                r.setEnd(node, m.index + m[0].length);
                const lines = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
                if (lines.size > 1) split.push(`${cell.tagName} ${m[0]}`);
            }
        }
    }
    return split;
}"""
"""Every word (a run of non-space characters) of the matched elements that the layout put on
more than one line box (its Range has client rects at more than one height)."""


def split_words(page: Any, selector: str) -> list[str]:
    """`SPLIT_WORDS` for `selector` on `page`: ``["TH Round", …]``, empty when none is split."""
    return list(page.evaluate(SPLIT_WORDS, selector))
