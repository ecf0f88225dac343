"""The engine lab (the engines preset) driven through the controller as the window drives it, and through ``run``:
past t = 46 s the damping steps (Bullet's implicit ones, MuJoCo's implicitfast, Catto's) have lost half the racket's
energy and go on, labelled as damping with their flips against the exact count; the explicit steps, which gained
it, are frozen as diverged. The window and ``run`` mark the same views, by the one rule (scene/model/failures.py)."""

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import view_labels
from spinlab.scene.model.runner import run_scene
from tests.ui.headless_host import headless_controller

DAMPING = {"bullet_implicit_world", "bullet_implicit_body", "mujoco_implicitfast", "catto2015"}
BLOWN_UP = {"bullet_explicit", "mujoco_euler"}


def test_past_46_s_the_damping_steps_go_on_and_run_marks_the_same_views(tmp_path):
    controller, host = headless_controller("engines", str(tmp_path))
    session = controller.timeline.session
    steps = round(46.7 / session.h)  # the racket's loss passed 0.5 at t = 45.65 s (at the preset's h = 1/60 s)
    assert controller.step(steps) == steps and controller.choices.error is None
    frozen = {session.groups[number].label: failure for number, failure in session.failures.items()}
    assert set(frozen) == BLOWN_UP and all(failure.diverged for failure in frozen.values())
    labels = {lines[0]: lines[1:] for lines in view_labels(session, session.groups)}
    damped = {name for name, lines in labels.items() if any(line.endswith("% (damping)") for line in lines)}
    assert damped == DAMPING
    for name in DAMPING:
        detail, damping, flips = labels[name]
        assert detail.startswith("t = 46.") and damping.startswith("ΔE \N{MINUS SIGN}5")
        counts = session.latest.sample.flips_exact[-1][[session.rows[i] for i in session.groups[0].bodies]]
        assert flips.endswith(f"(exact {int(counts[0])} · {int(counts[1])})")
    assert controller.form.failures == [f"{name}: {frozen[name].label()}" for name in sorted(BLOWN_UP)]

    # ``run engines`` for the same steps: the same views frozen at the same step, the same bodies noted as damping.
    failures: list = []
    rows = run_scene(load_scene("engines"), integrator=None, h=session.h, duration=session.t, failures=failures)
    assert {label: failure.t for label, failure in failures} == {name: frozen[name].t for name in BLOWN_UP}
    assert {row.integrator for row in rows if row.note and row.note.endswith("% (damping)")} == DAMPING
