"""The cyclic garbage collector paused while a large scene's objects are made, and kept off what lives as long as the
process.

Reading a scene of 10⁵ bodies makes ~10⁶ container objects (the TOML document's dicts and lists, the bodies'
specs), none in a reference cycle. CPython's cyclic collector runs a full collection each time the survivors
grow by a quarter, and each traverses every tracked object: a large file's load spent about half its time in them.
Paused, nothing is lost: the objects made are freed by reference counting as ever, and a cycle made
meanwhile is collected at the next collection after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "freeze_survivors"]


@contextmanager
def collector_paused(*, freeze_after: bool = False) -> Iterator[None]:
    """Within the block, no cyclic garbage collection (nested blocks are fine); as before after it. With
    ``freeze_after``, what survives the block is frozen (:func:`freeze_survivors`) before the collector runs again:
    the first allocation after a block that made many objects would otherwise set off a full collection of them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze_after:
            freeze_survivors()
        if enabled:
            gc.enable()


def freeze_survivors() -> None:
    """Move every object alive now out of the collector's reach (``gc.freeze``): the modules, classes and functions
    the window imported (some 200,000 objects). A full collection traversed them all, several frames' time on the
    window's thread whenever CPython ran one (and in every switch away from a large scene, ui/capacity.py); frozen,
    they are skipped. They are freed by reference counting as before; only a cycle
    among them would never be, and what the window has made by then holds none it leaves (a run is freed by
    reference counting: tested)."""
    gc.freeze()
