import sys
from pathlib import Path

# Test helpers (toy games, provider stubs) importable as `helpers.*`.
sys.path.insert(0, str(Path(__file__).parent))

pytest_plugins = ["helpers.postgres"]
