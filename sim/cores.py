"""Work split over the process's cores: a thread pool for batches whose time is numpy's own.

numpy lets go of the GIL inside an operation on an array of more than a few hundred elements, so pieces of a large
batch computed on threads run side by side on the cores, as long as their Python between operations is a small part
(Carlson's integrals over 10⁵ arguments, sim/carlson.py; the closed-form references of 10⁵ bodies,
scene/model/measures.py). Each piece is its own arithmetic: the results are the same bits as one thread's.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["WORKERS", "on_cores"]

Result = TypeVar("Result")

WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
"""Threads of the pool: the cores this process may run on."""

_pool: list[tuple[int, ThreadPoolExecutor]] = []  # (the process that made it, its threads)
_pool_lock = threading.Lock()
_in_worker = threading.local()  # set on the pool's threads: work there takes its pieces itself


def on_cores(function: Callable[..., Result], jobs: Sequence[tuple[Any, ...]]) -> list[Result]:
    """``[function(*job) for job in jobs]``, the jobs on the pool's :data:`WORKERS` threads (in order), each in the
    caller's context (its numpy error state, which numpy keeps in a context variable). On one thread in the caller
    where there is one core or one job, and on a pool thread (work it does never waits for the pool)."""
    if WORKERS < 2 or len(jobs) < 2 or getattr(_in_worker, "active", False):
        return [function(*job) for job in jobs]
    pool = _piece_pool()
    futures = [pool.submit(contextvars.copy_context().run, function, *job) for job in jobs]
    return [future.result() for future in futures]


def _piece_pool() -> ThreadPoolExecutor:
    """The pool, made at the first work that needs it (again in a forked child, which has none of its parent's
    threads)."""
    with _pool_lock:
        if not _pool or _pool[0][0] != os.getpid():
            _pool[:] = [(os.getpid(), ThreadPoolExecutor(WORKERS, "spinlab cores", _mark_worker))]
        return _pool[0][1]


def _mark_worker() -> None:
    _in_worker.active = True
