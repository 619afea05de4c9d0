"""Where a batch runs its files: in this process, in a local process pool, or as Ray tasks.

Each engine runs :func:`core.batch.process_file` on every path and returns its rows by path. Ctrl-C
stops a batch at once: pool workers leave the interrupt to this process (no traceback from each of
them), which cancels what is queued and kills what is running instead of waiting for it; nothing is
written (the report is only written once every file is done).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Rows = dict[str, list[dict[str, Any]]]
#: Told each file's rows as they come (in the calling process), before the run ends.
OnResult = Callable[[str, list[dict[str, Any]]], None] | None
#: The per-file task: ``task(path, settings, data=None)`` → that file's rows (it never raises).
Task = Callable[..., list[dict[str, Any]]]
#: The rows of a file whose worker died or could not read it: ``failed(path, error_text)``.
FailedRows = Callable[[str, str], list[dict[str, Any]]] | None


def _failed(failed: FailedRows, path: str, text: str) -> list[dict[str, Any]]:
    return failed(path, text) if failed is not None else [{"file": path, "error": text}]


def _done(bar: Any, on_result: OnResult, path: str, results: Rows) -> None:
    bar.update(1)
    if on_result is not None:
        on_result(path, results[path])


def progress_bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="file", file=sys.stderr, disable=not enabled, dynamic_ncols=True)


def run_inline(paths: Sequence[str], settings: dict[str, Any], bar: Any, task: Task,
               on_result: OnResult = None) -> Rows:
    results: Rows = {}
    for path in paths:
        results[path] = task(path, settings)
        _done(bar, on_result, path, results)
    return results


def ignore_interrupts() -> None:
    """A pool worker's initializer: Ctrl-C is the parent's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool: Any) -> None:
    """Cancel what a process pool has queued and kill what it runs, without waiting for either."""
    import multiprocessing

    processes = dict(getattr(pool, "_processes", None) or {})  # the pool forgets them on shutdown
    pool.shutdown(wait=False, cancel_futures=True)
    workers = list(processes.values()) or multiprocessing.active_children()
    for process in workers:
        if process.is_alive():
            process.kill()
    for process in workers:
        process.join(2)


def run_local(paths: Sequence[str], settings: dict[str, Any], workers: int, bar: Any, task: Task,
              on_result: OnResult = None, failed: FailedRows = None) -> Rows:
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from core.budget import forkserver_context

    # Workers fork from a server that imported the analysis once, so they start warm.
    context = forkserver_context(["core.batch", "core.views.savings", "core.summarizers.extractive"])
    results: Rows = {}
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=ignore_interrupts)
    try:
        futures = {pool.submit(task, path, settings): path for path in paths}
        for future in as_completed(futures):
            path = futures[future]
            try:
                results[path] = future.result()
            except Exception as exc:  # the worker died (killed, out of memory): report, carry on
                results[path] = _failed(failed, path, f"{path}: worker failed: {type(exc).__name__}: "
                                                  f"{' '.join(str(exc).split())}")
            _done(bar, on_result, path, results)
    except BaseException:  # Ctrl-C (or a failure here): the workers are stopped, not waited for
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    return results


def _core_package_dir() -> str:
    return str(Path(__file__).resolve().parent)


def run_ray(
    paths: Sequence[str],
    settings: dict[str, Any],
    workers: int | None,
    address: str | None,
    bar: Any,
    error: Callable[[str], Exception],
    task: Task,
    on_result: OnResult = None,
    failed: FailedRows = None,
) -> Rows:
    try:
        import ray
    except ImportError:
        raise error("the ray engine needs Ray: pip install 'ray[default]>=2.40'") from None
    import logging

    work = task
    started_here = False
    pending: dict[Any, str] = {}
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "configure_logging": True,
        }
        if address:
            # A cluster's nodes get this package from the driver; its dependencies must be installed there.
            options["runtime_env"] = {"py_modules": [_core_package_dir()]}
            try:
                ray.init(address=address, **options)
            except Exception as exc:
                raise error(f"cannot connect to the Ray cluster at {address}: {' '.join(str(exc).split())}") from None
        else:
            ray.init(num_cpus=workers or os.cpu_count() or 1, **options)
        started_here = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=1)(work)
        # On a cluster the workers may not see this machine's files: send the bytes along.
        ship = bool(address)
        window = max(4, 4 * int(ray.cluster_resources().get("CPU", workers or 1)))
        results: Rows = {}
        queue = list(paths)
        queue.reverse()

        def submit() -> None:
            path = queue.pop()
            if ship:
                try:
                    data = Path(path).read_bytes()
                except OSError as exc:
                    results[path] = _failed(failed, path, f"{path}: cannot read the file: {exc.strerror or exc}")
                    _done(bar, on_result, path, results)
                    return
                pending[remote.remote(path, settings, data)] = path
            else:
                pending[remote.remote(path, settings)] = path

        while queue or pending:
            while queue and len(pending) < window:
                submit()
            if not pending:
                continue
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                path = pending.pop(ref)
                try:
                    results[path] = ray.get(ref)
                except Exception as exc:  # the task's worker died: report, carry on
                    results[path] = _failed(
                        failed,
                        path, f"{path}: worker failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
                    )
                _done(bar, on_result, path, results)
        return results
    except BaseException:  # Ctrl-C: the running tasks are cancelled, not waited for
        for ref in list(pending):
            ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()
