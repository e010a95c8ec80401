"""The choices and bounds of the model-seat settings, written once.

The seats check values with them (`seats/llm/`), and the command line's help and parsers read
them (`cli/play.py`, `cli/common.py`): a command is built from this module without importing
the model seats, so an argument error or ``--help`` stays quick.
"""

from __future__ import annotations

PROVIDERS = ("openai", "anthropic")
"""The wire shapes a model seat speaks, each through its official SDK."""

MIN_REQUESTS_PER_MINUTE = 1
MAX_REQUESTS_PER_MINUTE = 100_000
DEFAULT_REQUESTS_PER_MINUTE = 600
"""The request budget of one endpoint in one episode (`seats/llm/budget.py`)."""

MIN_REPLY_TOKENS = 1
"""The least cap both APIs accept (the Messages API requires max_tokens >= 1)."""
MAX_REPLY_TOKENS = 128_000
"""The longest output the hosted providers document for their models (OpenAI's and
Anthropic's longest); a model with a smaller limit refuses more itself, with a 400 its
fallback's error shows."""
DEFAULT_REPLY_TOKENS = 1024
"""The reply-length cap of every request unless the prompt writer sets another: one JSON
action is far below it; a reasoning model, whose hidden reasoning counts against the cap,
may need more."""

