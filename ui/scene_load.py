"""A large scene file loaded in the background: no user action holds the window more than a frame.

Reading, checking and starting a scene costs ~0.2 ms a body on the window's thread: the 1000-body cloud preset
held it ~0.35 s, a 10^5-body file many seconds. A file over :data:`BACKGROUND_BYTES` is therefore read, checked
(:func:`~scene.model.run_model.check_scene_runs`) and its first run made (a
:class:`~scene.model.run_model.Session`, no GL) by a thread, while the window draws and answers as before and the
panel says "loading …"; the window then hands the edit to the controller with what the thread made
(``PanelEdits.loaded``), which starts it at once, or shows its error beside the scene field as any failed load.
A smaller file loads in the frame it is asked for, as ever.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from spinlab.scene.files.scene_file import load_scene, resolve_scene_path
from spinlab.scene.model.run_model import Session, Setup, check_scene_runs, default_integrators
from spinlab.ui.capacity import check_window_holds

if TYPE_CHECKING:
    from spinlab.scene.files.scene_file import SceneSpec
    from spinlab.ui.controller import Controller
    from spinlab.ui.controller_state import Choices, PanelEdits

__all__ = ["SceneLoad", "SceneLoads", "BACKGROUND_BYTES", "loads_in_background", "setup_loaded"]

BACKGROUND_BYTES = 32 * 1024
"""Scene files larger than this (~200 bodies) load in the background."""


def loads_in_background(scene: str) -> bool:
    """Whether the scene file ``scene`` (a preset's name or a path) is large enough to load in the background; a
    name that names no file loads (and fails) at once."""
    with contextlib.suppress(Exception):
        return os.stat(resolve_scene_path(scene)).st_size > BACKGROUND_BYTES
    return False


def setup_loaded(choices: Choices, scene: SceneSpec) -> Setup:
    """The setup the controller starts ``scene`` with once loaded (ui/controller.py's ``load``): the scene's own
    integrators and step, the gyroscopic term on; the comparison and the divergence threshold the person's."""
    return dataclasses.replace(
        choices, scene=scene, integrators=list(default_integrators(scene)), h=scene.h, gyroscopic=True
    ).setup()


class SceneLoad:
    """``edit`` (a panel edit asking for a scene) carried out up to its first run in a thread: the scene read and
    checked, and the run its setup under ``choices`` starts from made (:attr:`scene`, :attr:`session`), or the
    error that stopped it (:attr:`error`)."""

    def __init__(self, edit: PanelEdits, choices: Choices) -> None:
        assert edit.scene is not None, "a load is asked for by a scene edit"
        self.edit, self.name = edit, edit.scene
        self._choices = dataclasses.replace(choices)  # as they are now: the window's thread goes on changing them
        self.scene: SceneSpec | None = None
        self.session: Session | None = None
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._load, name="spinlab-scene-load", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        try:
            scene = load_scene(self.name)
            check_window_holds(scene)
            check_scene_runs(scene)
            self.session = Session(setup_loaded(self._choices, scene), record=True)
            self.scene = scene
        except Exception as error:  # noqa: BLE001 - reported by the controller, as a load in the frame is
            self.error = error

    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait(self) -> None:
        self._thread.join()

    def run_for(self, setup: Setup) -> Session | None:
        """:attr:`session` if it is the run ``setup`` starts (the same scene object, the same choices), else
        ``None`` (the person changed a choice meanwhile: the run is made again)."""
        session = self.session
        if session is None or session.setup.scene is not setup.scene:
            return None
        same = all(getattr(session.setup, field.name) == getattr(setup, field.name)
                   for field in dataclasses.fields(setup) if field.name != "scene")  # fmt: skip
        return session if same else None


class SceneLoads:
    """The window's scene loads: those of a large file go to the background (:class:`SceneLoad`, a later one
    replacing an earlier one), and come back as an edit once done; the ``controller`` says "loading …"."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.loading: SceneLoad | None = None

    def edits_now(self, asked: Iterable[PanelEdits]) -> list[PanelEdits]:
        """``asked`` to be applied this frame: less the loads that go to the background, with the edit of a load
        finished since (carrying what was made: ``loaded``)."""
        finished = []
        if self.loading is not None and self.loading.done():
            self.loading.edit.loaded, finished, self.loading = self.loading, [self.loading.edit], None
        now = []
        for edit in (*asked, *finished):
            if edit.scene is not None and edit.loaded is None and loads_in_background(edit.scene):
                self.loading = SceneLoad(edit, self.controller.choices)
                self.controller.tell(f"loading {edit.scene} …")
            else:
                now.append(edit)
        return now
