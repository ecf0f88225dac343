"""How much the window holds: the most bodies it opens, and how many body-steps it measures in one call.

The window holds what it draws, not everything it could: the plots a sample of 64 bodies (ui/plot_series.py), the
trails a bounded number of samples (render/trail.py), the renderer a few hundred bytes a body
(tests/render/test_renderer_memory.py bounds it). What grows with the bodies is then the scene as read
(scene/files/scene_file.py), the run (scene/model/run_model.py's ``Session``: the world's state and layout, its
views, the references of the rows it measures) and the history of its steps (the snapshot and the measures of each,
within scene/model/step_record.py's budget), each some hundreds of bytes to a kilobyte or two a body, so a 10^5-body
cloud, the most the window opens, fits in about a gigabyte. Beyond :data:`WINDOW_MAX_BODIES` the window refuses a
scene in one line, naming the limit (``run`` and ``record`` take up to 10^6).
"""

from __future__ import annotations

import ctypes
import gc

from spinlab.scene.files.limits import check_count
from spinlab.scene.files.scene_file import SceneSpec

__all__ = ["WINDOW_MAX_BODIES", "STEP_CALL_BODY_STEPS", "check_window_holds", "steps_per_call", "release_freed_memory",
           "map_large_blocks"]  # fmt: skip

WINDOW_MAX_BODIES = 100_000
# Each step of each body costs ~0.7 kB until the window has recorded it (the snapshot and the measures of
# scene/model/run_model.py's Session.step, and their history entry): the window asks
# for at most this many body-steps in one call, ~70 MB (10^5 bodies: one step a call; a thousand: a hundred).
STEP_CALL_BODY_STEPS = 100_000


def check_window_holds(scene: SceneSpec) -> None:
    """Raise :class:`~sim.errors.InputError`, naming ``scene``'s file and the limit, when it has more bodies than
    the window holds (and the limits are not lifted: ``SPINLAB_NO_LIMITS=1``)."""
    check_count(len(scene.bodies), WINDOW_MAX_BODIES, "bodies in the window", where=str(scene.path))


def steps_per_call(bodies: int) -> int:
    """The most steps of ``bodies`` bodies the window takes in one call (at least one)."""
    return max(1, STEP_CALL_BODY_STEPS // max(bodies, 1))


# glibc's mallopt parameter, and the size from which blocks are mapped on their own (its initial threshold).
_M_MMAP_THRESHOLD = -3
MAPPED_BLOCK_BYTES = 128 * 1024


def map_large_blocks() -> None:
    """Have the C library (glibc) map every block of at least :data:`MAPPED_BLOCK_BYTES` on its own, so that it
    goes back to the system when freed. By default glibc raises that threshold to as much as 32 MB once such a block
    is freed, and a 10^5-body scene's arrays of a frame (1-10 MB each, made and freed every frame) then fragment
    its heap: the window's memory grew by 500 MB in two minutes. Elsewhere, nothing changes."""
    try:
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, MAPPED_BLOCK_BYTES)
    except (OSError, AttributeError):
        pass


def release_freed_memory() -> None:
    """Hand the memory freed so far back to the system, where the C library can (glibc's ``malloc_trim``): a
    run's millions of small objects, freed (the scene's check run, the run a restart replaced), otherwise stay in
    the process's heap (~260 MB after the check of a 10^5-body scene), under what the next run allocates."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the memory is reused by this process instead
        pass
