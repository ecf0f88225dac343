"""A run's captions and those shown at any of its steps: the scene's ``[[caption]]`` tables, and the ``caption`` of
each ``[[kick]]`` and ``[[change]]`` as a caption of its own from the step it lands on, for
scene/model/run_changes.py's :data:`~scene.model.run_changes.CAPTION_S` seconds (as long as a change's line stays in
the views' labels), at the bottom.

Every caption is held in steps of the run's ``h``: shown from the first step boundary ``t_k = k h`` at or after its
time (as a kick lands, scene/files/kick_table.py's ``kick_step``) until the first at or after its end (on one step
at least), so that the
window, looking back too, and a video show a caption on exactly the same steps. The window and ``record`` draw what
:func:`captions_at` gives (render/captions.py), the timeline marks :func:`scene_captions`.
"""

from __future__ import annotations

import bisect
import functools
import weakref
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from spinlab.scene.files.caption_table import PLACES
from spinlab.scene.files.kick_table import kick_step
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.run_changes import CAPTION_S

if TYPE_CHECKING:
    from spinlab.scene.model.run_model import Session
    from spinlab.scene.model.step_record import Moment

__all__ = ["Caption", "Captions", "scene_captions", "captions_at", "MAX_SHOWN"]

MAX_SHOWN = 3  # captions shown at once in one place: the latest to start (a pile of them reads as none)


@dataclass(frozen=True)
class Caption:
    """``lines`` of text shown on steps ``first_step`` ≤ k < ``end_step`` at ``position`` ("bottom", "top" or a body's
    name), pointing at the scene's body ``body`` (its index in the file) when it names one."""

    first_step: int
    end_step: int
    lines: tuple[str, ...]
    position: str = PLACES[0]
    body: int | None = None


@dataclass(frozen=True)
class Captions:
    """A run's captions, by their first step, with what a look-up needs: their first steps, and the longest span."""

    captions: tuple[Caption, ...]
    first_steps: tuple[int, ...]
    longest: int

    @functools.cached_property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Each caption's steps, ``(first_step, end_step)``: what the timeline marks."""
        return tuple((caption.first_step, caption.end_step) for caption in self.captions)

    def at(self, step: int) -> tuple[Caption, ...]:
        """The captions shown at ``step``, at most :data:`MAX_SHOWN` in each place, in the order they started."""
        begun = bisect.bisect_right(self.first_steps, step)
        shown: list[Caption] = []
        for index in range(begun - 1, -1, -1):
            caption = self.captions[index]
            if caption.first_step + self.longest <= step:
                break  # every earlier one has ended
            if step < caption.end_step and sum(c.position == caption.position for c in shown) < MAX_SHOWN:
                shown.append(caption)
        return tuple(reversed(shown))


_CACHE: weakref.WeakKeyDictionary[SceneSpec, dict[float, Captions]] = weakref.WeakKeyDictionary()


def scene_captions(scene: SceneSpec, h: float) -> Captions:
    """``scene``'s captions in a run of step ``h`` s, its kicks' and changes' too; made once per scene and ``h`` (a
    window frame asks each time it draws)."""
    made = _CACHE.setdefault(scene, {})
    if h not in made:
        made[h] = _captions(scene, h)
    return made[h]


def captions_at(shown: Session | Moment) -> tuple[Caption, ...]:
    """The captions shown at ``shown``'s step (a session's latest, or a moment's), those of the scene its setup
    started from (side by side, the file's: its kicks are copied once per view)."""
    h = shown.h
    return scene_captions(shown.setup.scene, h).at(round(shown.t / h))


def _captions(scene: SceneSpec, h: float) -> Captions:
    index = {body.name: number for number, body in enumerate(scene.bodies)}
    made = [
        Caption(
            kick_step(caption.time, h), kick_step(caption.time + caption.duration, h), _lines(caption.text),
            caption.position, index.get(caption.position) if caption.position not in PLACES else None,
        )
        for caption in scene.captions
    ]  # fmt: skip
    events: list[tuple[float, str | None]] = [(kick.time, kick.caption) for kick in scene.kicks if kick.caption]
    events += [(change.time, change.caption) for change in scene.changes if change.caption]
    for time, text in events:
        first = kick_step(time, h)
        made.append(Caption(first, kick_step(first * h + CAPTION_S, h), _lines(str(text))))
    # A caption shorter than a step is shown on one all the same: what a file asks for is seen.
    made = [replace(caption, end_step=max(caption.end_step, caption.first_step + 1)) for caption in made]
    made.sort(key=lambda caption: caption.first_step)  # stable: file order among equals
    longest = max((caption.end_step - caption.first_step for caption in made), default=0)
    return Captions(tuple(made), tuple(caption.first_step for caption in made), longest)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().split("\n"))
