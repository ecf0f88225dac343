"""The kernel loader's stages leave nothing for the window to compile (a kernel marked ready but not loaded
compiles on the window's thread at its first call). In fresh processes, counting numba's compiles: every preset
alone and side by side under every family, and every method and axes splitting chosen, after the stages; and the
colour stage against the frames a recording reads back from GL (read-only arrays, a signature of their own for
numba, which the encoder's thread compiled at the window's first recording: 0.2 s gaps)."""

from tests.hang import HANG_S
from tests.ui.compile_count import run_counted

_CHILD = r"""
import numpy as np
from spinlab.sim import compiled
from spinlab.ui.kernel_loader import _colour_conversion
compiled.start_on_numpy()
with compiled.loading():
    _colour_conversion()
compiled.mark_ready([compiled.COLOUR_CONVERSION])
loaded = len(compiles)
from spinlab.render.yuv import rgb_to_yuv420p_bt709
for channels in (4, 3):  # a window's read-back (RGBA) and an RGB one, as GL gives them: bytes, read-only
    frame = np.frombuffer(bytes(48 * 64 * channels), np.uint8).reshape(48, 64, channels)
    planes = [np.zeros((48, 64), np.uint8), np.zeros((24, 32), np.uint8), np.zeros((24, 32), np.uint8)]
    for flip in (True, False):
        rgb_to_yuv420p_bt709(frame, *planes, flip=flip)
print(json.dumps({"loaded": loaded, "after": compiles[loaded:]}))
"""


_EVERY_ACTION = r"""
from spinlab.sim import compiled
compiled.start_on_numpy()
from spinlab.scene.files.scene_file import list_presets, load_scene
from spinlab.sim.integrators import FAMILIES
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.kernel_loader import stages
from tests.ui.headless_host import headless_controller

for names, work in stages(load_scene("compare")):  # as the loader's thread takes them, each marked ready after
    with compiled.loading():
        work()
    compiled.mark_ready(names)
loaded = len(compiles)
controller, host = headless_controller("compare", sys.argv[1])
steps = []
def act(**fields):
    controller.apply(PanelEdits(**fields))
    steps.append(controller.step(2))
for preset in list_presets():
    act(scene=preset)
    for family in FAMILIES.values():
        controller.choices.compared = list(family)
        act(side_by_side=True)
act(scene="t_handle")
for name in FAMILIES["all"] + FAMILIES["axes"]:
    act(integrator=(None, name))
error = controller.form.message_is_error and controller.form.message
print(json.dumps({"loaded": loaded, "after": compiles[loaded:], "steps": steps, "error": error}))
"""


def test_after_the_stages_no_action_compiles_a_kernel(tmp_path):
    report = run_counted(_EVERY_ACTION, str(tmp_path))
    assert not report["error"], report["error"]
    assert all(taken == 2 for taken in report["steps"]), report["steps"]  # every action's run stepped on
    assert report["loaded"] > 0 and report["after"] == [], report["after"]


def test_the_colour_stage_covers_the_frames_a_recording_reads_back():
    report = run_counted(_CHILD)
    assert report["loaded"] > 0, "the stage compiled or loaded the conversion"
    assert report["after"] == [], report["after"]


def test_the_loader_loads_each_stage_the_worker_has_cached():
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.sim import compiled
    from spinlab.sim.integrators import INTEGRATORS
    from spinlab.ui.kernel_loader import KernelLoader

    loader = KernelLoader("t_handle", load_scene("t_handle"))
    try:
        assert loader.wait(HANG_S), f"{loader.stages_done} of {len(loader.stages)} stages loaded"
    finally:
        loader.close()
    assert not loader.load_ready()  # nothing more to load
    with compiled.gated(set(compiled._ready)):  # what the loader marked ready
        assert not compiled.not_ready([*INTEGRATORS, compiled.FREE_FALL, compiled.COLOUR_CONVERSION])
