"""The model options of `cogleague play GAME` take their ranges and choices from
`core/model_limits.py`, in their help and in their parsers alike: a bound written by hand in a
help text stays behind when the constant moves, and the help then promises what the parser
refuses (or the reverse)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json
import cogleague.core.model_limits as limits
limits.MAX_REQUESTS_PER_MINUTE = 50
limits.DEFAULT_REQUESTS_PER_MINUTE = 40
limits.MAX_REPLY_TOKENS = 70
limits.DEFAULT_REPLY_TOKENS = 60
limits.PROVIDERS = ("openai",)
from typer.testing import CliRunner
from cogleague.cli import app

def said(*args):
    done = CliRunner().invoke(app, ["play", "dilemma", *args], env={"COLUMNS": "300"})
    return " ".join(done.output.split())

print(json.dumps({"help": said("--help"),
                  "per_minute": said("--requests-per-minute", "51"),
                  "reply_tokens": said("--max-reply-tokens", "71"),
                  "provider": said("--provider", "anthropic", "--rounds", "1")}))
"""


def test_the_model_options_help_and_parsers_read_the_one_constant() -> None:
    """The bounds moved (in a child process, before the command is built): the help and the
    parser of each option follow them together."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert "its seats (1..50; default 40)" in seen["help"]
    assert "(1..70; default 60)" in seen["help"]
    assert "openai | anthropic" not in seen["help"]
    assert seen["per_minute"] == ("error: --requests-per-minute must be an integer in 1..50 "
                                  "(got 51)")
    assert seen["reply_tokens"] == "error: --max-reply-tokens must be an integer in 1..70 (got 71)"
    assert seen["provider"] == "error: --provider must be openai (got 'anthropic')"
