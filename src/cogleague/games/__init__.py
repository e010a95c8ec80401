"""The three games. Each lives in its own package and registers in `registry.py`."""
