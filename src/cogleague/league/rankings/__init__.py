"""Standings: per game and variant the seeds' own statistic (mean episode score with a
bootstrap interval), across games Bradley–Terry and OpenSkill. See `standings.py`."""

from cogleague.league.rankings.standings import standings, standings_json

__all__ = ["standings", "standings_json"]
