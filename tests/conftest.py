import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis checks rules and invariants, never speed: no per-example deadline (a shared,
# loaded machine would fail an example for its clock, not for what it checks).
settings.register_profile("cogleague", deadline=None)
settings.load_profile("cogleague")

# Test helpers (toy games, provider stubs) importable as `helpers.*`.
sys.path.insert(0, str(Path(__file__).parent))

pytest_plugins = ["helpers.postgres"]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """One xdist worker per core unless `-n` is given. This lives here, not in pyproject's
    `addopts`, so that a user's own bot test run from the checkout (the README's bot section)
    gets no `-n` from the project."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses",
                                                                     None) is None:
        config.option.numprocesses = "auto"
