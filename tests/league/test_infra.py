"""A league never scores a policy for the platform's failure: episodes whose seats fell back
for platform reasons are stored as infra_error, shown, left out of rankings and rerun with
`--retry-infra`; bot files in league files are read beside the league file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.provider_server import ProviderServer, Reply

COGLEAGUE = Path(sys.executable).with_name("cogleague")


def league(tmp: Path, base_url: str) -> Path:
    path = tmp / "league.toml"
    path.write_text(f'''
[league]
name = "infra"
seed = 5
store = "sqlite:///{tmp / 'league.db'}"

[[policies]]
name = "prompted"
prompt = "prompt.txt"
model = "m"
provider = "openai"
base_url = "{base_url}"

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "pav"
baseline = "pavlov"

[[policies]]
name = "mine"
bot = "bots/mine.py:Mine"

[[games]]
name = "dilemma"
episodes = 4
seats = 4
overrides = {{ rounds_total = 2, promises = false }}
''', encoding="utf-8")
    (tmp / "prompt.txt").write_text("Cooperate.", encoding="utf-8")
    (tmp / "bots").mkdir()
    (tmp / "bots" / "mine.py").write_text(
        "from cogleague import Bot\n\nclass Mine(Bot):\n"
        "    def on_turn(self, turn):\n        return {'action': 'cooperate'}\n",
        encoding="utf-8")
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(COGLEAGUE), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "k"})


def test_platform_failures_are_infra_errors_never_ranked_and_retried(tmp_path: Path) -> None:
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    with ProviderServer() as provider:
        provider.script = lambda req: Reply(fault="500")
        path = league(tmp_path, provider.openai_url)
        ran = cli("league", "run", str(path), "--workers", "1", cwd=elsewhere)
        # every episode infra_error: nothing to rank, which a script or CI step must see
        assert ran.returncode == 1, ran.stderr
        assert "episodes stored as infra_error" in ran.stdout
        assert "nothing to rank" in ran.stdout
        doc = json.loads(cli("league", "standings", str(path), "--json", cwd=elsewhere).stdout)
        infra = [f for f in doc["failures"] if f["status"] == "infra_error"]
        assert infra and doc["episodes"]["infra_error"] == len(infra)
        assert all("transport" in f["error"] for f in infra)
        ranked = {r["policy"] for t in doc["tables"] for r in t["rows"]}
        assert "prompted" not in ranked  # never scored for the provider's 500s
        again = cli("league", "run", str(path), "--workers", "1", cwd=elsewhere)
        assert "0 to play" in again.stdout  # not retried unless asked
        provider.script = lambda req: Reply('{"action": "cooperate"}')
        retried = cli("league", "run", str(path), "--workers", "1", "--retry-infra",
                      cwd=elsewhere)
        assert retried.returncode == 0 and f"{len(infra)} to play" in retried.stdout
    doc = json.loads(cli("league", "standings", str(path), "--json", cwd=elsewhere).stdout)
    assert doc["failures"] == [] and doc["episodes"]["ok"] == 4
    assert "prompted" in {r["policy"] for t in doc["tables"] for r in t["rows"]}
    assert "mine" in {r["policy"] for t in doc["tables"] for r in t["rows"]}


def test_an_unreachable_model_endpoint_stops_the_league_before_play(tmp_path: Path) -> None:
    path = league(tmp_path, "http://127.0.0.1:9/v1")
    done = cli("league", "run", str(path), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "policy prompted: cannot reach the model endpoint http://127.0.0.1:9/v1" in done.stderr
    assert "played" not in done.stdout


def test_a_bad_bot_file_in_a_league_is_one_line_before_running(tmp_path: Path) -> None:
    path = league(tmp_path, "http://127.0.0.1:9/v1")
    (tmp_path / "bots" / "mine.py").unlink()
    done = cli("league", "run", str(path), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "bots/mine.py does not exist" in done.stderr
    (tmp_path / "bad.toml").write_text("[league\nname = 1", encoding="utf-8")
    bad = cli("league", "run", str(tmp_path / "bad.toml"), cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
