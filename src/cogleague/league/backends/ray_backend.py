"""Episodes as Ray tasks (``pip install 'cogleague[ray]'``).

Without an address a local Ray instance is started with `workers` CPUs; with one
(``ray://head:10001`` or ``auto``) the driver joins that cluster and Ray places the tasks.
Each task plays one chunk with the same `worker.play_chunk` as the local pool and returns its
records to the driver, which alone writes the store. A task whose worker or node is lost (a
segfault, the out-of-memory killer) is the platform's failure: every episode of its chunk is
stored as ``infra_error`` (never ranked, played again by ``league run --retry-infra``). A task
that raised is `play_chunk`'s own bug: its chunk is stored as failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.errors import ConfigError
from cogleague.league.backends import HeldRows, OnChunk
from cogleague.league.episodes import STATUS_FAILED, STATUS_INFRA, EpisodeSpec
from cogleague.league.worker import failed_records, play_chunk

IN_FLIGHT_PER_WORKER = 2


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("backend", "backend ray needs Ray: pip install 'cogleague[ray]'") from exc
    return ray


class RayBackend:
    name = "ray"
    min_chunk = 8  # a task costs Ray a few milliseconds of scheduling and its object store

    def __init__(self, workers: int = 2, address: str | None = None) -> None:
        self.workers = max(1, workers)
        self.address = address

    def _start(self, ray: Any) -> bool:
        """Connect (or start a local instance); True when this call started Ray."""
        if ray.is_initialized():
            return False
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if self.address is None:
            kwargs["num_cpus"] = self.workers
        else:
            kwargs["address"] = self.address
        ray.init(**kwargs)
        return True

    def run(self, chunks: Sequence[Sequence[EpisodeSpec]], on_chunk: OnChunk) -> None:
        ray = import_ray()
        started = self._start(ray)
        try:
            task = ray.remote(num_cpus=1, max_retries=0)(play_chunk)
            limit = max(self.workers, int(ray.cluster_resources().get("CPU", 1)))
            limit *= IN_FLIGHT_PER_WORKER
            todo = list(chunks)[::-1]
            running: dict[Any, Sequence[EpisodeSpec]] = {}

            def fill() -> None:
                while todo and len(running) < limit:
                    chunk = todo.pop()
                    running[task.remote(chunk)] = chunk

            fill()
            held = HeldRows(on_chunk)
            try:
                while running:
                    # whatever is back, and what is due or last: one transaction for all of it
                    done, rest = ray.wait(list(running), num_returns=1, timeout=held.wait_s())
                    if rest:
                        more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                        done += more
                    for ref in done:
                        chunk = running.pop(ref)
                        try:
                            held.add(ray.get(ref))
                        except Exception as exc:  # RayTaskError, WorkerCrashedError, node loss …
                            raised = isinstance(exc, ray.exceptions.RayTaskError)
                            held.add(failed_records(
                                chunk, f"ray task failed ({type(exc).__name__}: "
                                       f"{str(exc)[:500]})",
                                STATUS_FAILED if raised else STATUS_INFRA))
                    fill()  # the workers' next chunks before the driver's commit
                    if held.due() or not running:
                        held.flush()
            finally:
                held.flush()
        finally:
            if started:
                ray.shutdown()
