"""Scripted changes applied: the gyroscopic term of a scene file's ``[[change]]`` tables (scene/files/change_table.py)
by the step index each lands on, as the simulation reads it after each step.
"""

from __future__ import annotations

from collections.abc import Sequence

from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.kick_table import kick_step

__all__ = ["ChangeSchedule"]


class ChangeSchedule:
    """A scene's changes by the step index they land on (``h`` s); at one step, the last one written wins."""

    def __init__(self, changes: Sequence[ChangeSpec], h: float) -> None:
        self._by_step: dict[int, bool] = {}
        for change in changes:
            self._by_step[kick_step(change.time, h)] = change.gyroscopic

    def gyroscopic_at(self, step: int) -> bool | None:
        """The gyroscopic term from step ``step`` on, when a change lands there (``None`` when none does)."""
        return self._by_step.get(step)

    def by_step(self) -> list[tuple[int, bool]]:
        """Every change as (step it lands on, the gyroscopic term from then on), in step order."""
        return sorted(self._by_step.items())
