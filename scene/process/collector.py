"""The cyclic garbage collector paused while a large scene's objects are made.

Reading a scene of 10⁵ bodies makes ~10⁶ container objects (the TOML document's dicts and lists, the bodies'
specs), none in a reference cycle. CPython's cyclic collector runs a full collection each time the survivors
grow by a quarter, and each traverses every tracked object: 9 of them while such a file loads, about half of its
2.7 s. Paused, nothing is lost: the objects made are freed by reference counting as ever, and a cycle made
meanwhile is collected at the next collection after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block, no cyclic garbage collection (nested blocks are fine); as before after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
