"""The window never compiles on its own thread: started as ``gui`` starts it (sim/compiled.py's
``start_on_numpy``, no kernel ready), every action a person takes — the compare scene, "all side by side", another
preset loaded (each of them, alone and side by side), an integrator switched, a kick, h edited, a reset — steps on
the numpy paths, and numba compiles nothing, nor loads a kernel from its cache (tests/ui/compile_count.py)."""

from tests.ui.compile_count import run_counted

_ACTIONS = r"""
from spinlab.sim import compiled
compiled.start_on_numpy()
from spinlab.ui.controller_state import PanelEdits
from tests.ui.headless_host import headless_controller

controller, host = headless_controller("compare", sys.argv[1])
steps = []
def act(**fields):
    controller.apply(PanelEdits(**fields))
    steps.append(controller.step(3))

act()
act(side_by_side=True)
act(scene="heavy_top")
act(side_by_side=True)
act(scene="t_handle")
act(integrator=(None, "im6"))
act(kick=(0, (0.0, 1.0, 0.0)))
act(h_text="1/120", apply_h=True)
act(reset=True)
from spinlab.scene.files.scene_file import list_presets
for preset in list_presets():  # every preset loaded, as from the panel's list (the hierarchy's graph among them)
    act(scene=preset)
    act(side_by_side=True)
error = controller.form.message_is_error and controller.form.message
print(json.dumps({"compiles": compiles, "steps": steps, "error": error}))
"""


def test_no_action_compiles_a_kernel_on_the_window_thread(tmp_path):
    report = run_counted(_ACTIONS, str(tmp_path))
    assert not report["error"], report["error"]
    assert all(taken == 3 for taken in report["steps"]), report["steps"]  # every action's run stepped on
    assert report["compiles"] == [], report["compiles"]
