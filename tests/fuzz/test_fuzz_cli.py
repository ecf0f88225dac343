"""Fuzz the command line with generated scene files and arguments (see tests/fuzz/__init__.py for how to run it
longer). Every example runs the real ``main.main``; what is checked is in tests/fuzz/harness.py and cases.py."""

import os

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.fuzz.cases import describe, gui_case, record_case, run_case, save_case, workspace
from tests.fuzz.harness import invoke, invoke_subprocess
from tests.fuzz.strategies import SceneFile, scene_files

EXAMPLES = int(os.environ.get("SPINLAB_FUZZ_EXAMPLES", "80"))
settings.register_profile(
    "spinlab-fuzz",
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=bool(os.environ.get("CI")),
    print_blob=True,
)
PROFILE = settings.get_profile("spinlab-fuzz")


def _examples(share: float, least: int) -> settings:
    return settings(PROFILE, max_examples=max(least, int(EXAMPLES * share)))


@_examples(1.0, 20)
@given(scene=scene_files(), data=st.data())
def test_run_handles_any_scene_and_arguments(scene: SceneFile, data):
    outcome, found = run_case(data, scene)
    assert not found, describe(scene, outcome, found)


@_examples(0.15, 6)
@given(scene=scene_files(), data=st.data())
def test_record_handles_any_scene_and_arguments(scene: SceneFile, data):
    outcome, found = record_case(data, scene)
    assert not found, describe(scene, outcome, found)


@_examples(0.1, 6)
@given(scene=scene_files())
def test_gui_refuses_bad_files_before_any_window(scene: SceneFile):
    # A real process: no operating system passes an argument with a NUL byte (run's cases, in process, take it).
    assume("\x00" not in scene.arg)
    outcome, found = gui_case(scene)
    assert not found, describe(scene, outcome, found)


@_examples(0.25, 10)
@given(scene=scene_files(), data=st.data())
def test_a_scene_that_loads_saves_and_loads_back_and_odd_places_are_refused(scene: SceneFile, data):
    outcome, found = save_case(data, scene)
    assert not found, describe(scene, outcome, found)


@settings(PROFILE, max_examples=4)
@given(scene=scene_files(allow_special=False), duration=st.sampled_from(("0.05", "1e-40", "0", "nan")))
def test_in_process_harness_matches_a_real_process(scene: SceneFile, duration: str):
    """What the in-process harness sees is what a person sees: same status, same stderr, same stdout lines."""
    with workspace(scene) as ws:
        argv = ["run", ws.scene_arg, "--duration", duration, "--trace", "t.csv"]
        inside = invoke(argv, ws.out, debug=False)
        (ws.out / "t.csv").unlink(missing_ok=True)
        real = invoke_subprocess(argv, ws.out)
    assert (inside.status, inside.stderr) == (real.status, real.stderr)
    assert len(inside.stdout.splitlines()) == len(real.stdout.splitlines())
    assert not inside.warnings
