"""Reinforcement-learning environments over every installed game (`docs/rl.md`).

- `parallel_env(game, **config)`: a PettingZoo `ParallelEnv`, one agent per seat;
- `aec_env(game, **config)`: the same through PettingZoo's own `parallel_to_aec`;
- `single_agent_env(game, opponents=[...], seat=0, **config)`: a Gymnasium `Env` in which
  the other seats are baselines, SDK bots or saved policies (``policy:PATH``);
- `vector_env(game, num_envs=B, ...)` / `parallel_vector_env(game, num_envs=B)`: B tables
  at once over the game's batch kernel (``extras["batch"]``, `cogleague.envs.vector`).

Each reads the game's numeric encoding from its descriptor (``extras["rl"]``,
`cogleague.envs.encoding`), so a plugin game that declares one needs no code here. Needs the
``[rl]`` extra (pettingzoo, gymnasium); `cogleague.envs.encoding` itself does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cogleague.envs.parallel import CogleagueParallelEnv
    from cogleague.envs.single import SingleAgentEnv
    from cogleague.envs.vector import BatchVectorEnv, ParallelVectorEnv

__all__ = ["aec_env", "parallel_env", "parallel_vector_env", "single_agent_env", "vector_env"]

_MISSING = "cogleague.envs needs the rl extra: pip install 'cogleague[rl]' ({})"


def _need_rl() -> None:
    try:
        import gymnasium  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised without the extra only
        raise ImportError(_MISSING.format(exc)) from exc


def parallel_env(game: Any, **config: Any) -> CogleagueParallelEnv:
    """A PettingZoo `ParallelEnv` for `game` (a name or a descriptor). Keywords: `variant`,
    `policy_names`, `views` (put the protocol view in infos; default True) and the game's own
    options (as `cogleague play` takes them)."""
    _need_rl()
    from cogleague.envs.parallel import CogleagueParallelEnv

    return CogleagueParallelEnv(game, **config)


def aec_env(game: Any, **config: Any) -> Any:
    """The AEC form of `parallel_env`, through PettingZoo's own converter."""
    _need_rl()
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(parallel_env(game, **config))


def single_agent_env(game: Any, opponents: Any = None, seat: int = 0,
                     **config: Any) -> SingleAgentEnv:
    """A Gymnasium `Env` playing `seat`; the other seats are `opponents` (see
    `cogleague.envs.single.SingleAgentEnv`)."""
    _need_rl()
    from cogleague.envs.single import SingleAgentEnv

    return SingleAgentEnv(game, opponents=opponents, seat=seat, **config)


def vector_env(game: Any, num_envs: int = 1, opponents: Any = None, seat: int = 0,
               **config: Any) -> BatchVectorEnv:
    """A Gymnasium `VectorEnv` of `num_envs` tables over the game's batch kernel: `seat`
    learns, `opponents` are baselines (see `cogleague.envs.vector.BatchVectorEnv`)."""
    _need_rl()
    from cogleague.envs.vector import BatchVectorEnv

    return BatchVectorEnv(game, num_envs=num_envs, opponents=opponents, seat=seat, **config)


def parallel_vector_env(game: Any, num_envs: int = 1, **config: Any) -> ParallelVectorEnv:
    """The PettingZoo parallel API over `num_envs` tables of the game's batch kernel."""
    _need_rl()
    from cogleague.envs.vector import ParallelVectorEnv

    return ParallelVectorEnv(game, num_envs=num_envs, **config)
