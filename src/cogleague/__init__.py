"""cogleague — a league of social-dilemma games for AI agents."""

__version__ = "0.1.0"
