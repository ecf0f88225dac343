"""Scripted changes applied: the gyroscopic term of a scene file's ``[[change]]`` tables (scene/files/change_table.py)
by the step index each lands on, as the simulation reads it after each step: the whole world's term, and the
switches of single bodies' own.
"""

from __future__ import annotations

from collections.abc import Sequence

from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.kick_table import kick_step

__all__ = ["ChangeSchedule"]


class ChangeSchedule:
    """A scene's changes by the step index they land on (``h`` s); at one step, the last one written wins (a change
    of the whole world over the single bodies' written before it)."""

    def __init__(self, changes: Sequence[ChangeSpec], h: float) -> None:
        self._by_step: dict[int, bool] = {}
        self._own_by_step: dict[int, dict[str, bool]] = {}
        for change in changes:
            step = kick_step(change.time, h)
            if change.body is None:
                self._by_step[step] = change.gyroscopic
                self._own_by_step.pop(step, None)  # the whole world's change, written later, wins
            else:
                self._own_by_step.setdefault(step, {})[change.body] = change.gyroscopic

    def gyroscopic_at(self, step: int) -> bool | None:
        """The gyroscopic term from step ``step`` on, when a change lands there (``None`` when none does)."""
        return self._by_step.get(step)

    def own_at(self, step: int) -> dict[str, bool]:
        """The bodies' own switches that land on step ``step``, by body name (after the world's change there)."""
        return self._own_by_step.get(step, {})

    def by_step(self) -> list[tuple[int, bool]]:
        """Every change of the whole world as (step it lands on, the gyroscopic term from then on), in step order."""
        return sorted(self._by_step.items())

    def own_by_step(self) -> list[tuple[int, str, bool]]:
        """Every switch of a single body as (step it lands on, the body's name, its term from then on)."""
        return sorted((step, name, on) for step, own in self._own_by_step.items() for name, on in own.items())
