"""The dilemma's results table counts every turn that fell back (the rules play each one as a
timeout), so its column says so in the words the `fallbacks:` line and the Commons table use;
headed `t/o`, it showed a bot that raised and never ran late as 40 timeouts."""

from __future__ import annotations

import re
from pathlib import Path

from seam.support import run_cli

BOT = '''
from cogleague import Bot

class Bad(Bot):
    def on_turn(self, turn):
        if turn.visible_state["round"] % 2:
            raise ValueError("boom")
        return {"action": "nonsense"}
'''


def test_the_results_table_heads_fallbacks_and_counts_them(tmp_path: Path) -> None:
    (tmp_path / "bad_bot.py").write_text(BOT, encoding="utf-8")
    done = run_cli("play", "dilemma", "--seats", "bad_bot.py:Bad,tit_for_tat,pavlov",
                   "--seed", "3", "--out", "run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if "alias" in line)
    labels = [cell.strip() for cell in re.split(r"[┃│|]", header) if cell.strip()]
    assert "t/o" not in labels and labels[-2:] == ["fallbacks", "payout"], labels
    row = next(line for line in done.stdout.splitlines() if "bad_bot.py" in line)
    cells = [cell.strip() for cell in re.split(r"[┃│|]", row) if cell.strip()]
    line = next(x for x in done.stderr.splitlines() if x.startswith("fallbacks:"))
    counted = sum(int(n) for n in re.findall(r"(\d+) (?:error|illegal|timeout|parse)", line))
    assert counted > 0 and cells[-2] == str(counted), (cells, line)
