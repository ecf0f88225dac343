"""The Python API (spinlab/api.py): the command line's runs, numbers and messages, from Python."""

import doctest
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spinlab
from spinlab import api
from spinlab.sim.integrators import CLAIMS, METHODS
from spinlab.sim.integrators.claims import describe

ROOT = Path(__file__).resolve().parents[1]

# The T-handle preset with a kick and a switch of the gyroscopic term: everything a trace depends on.
SCENE = """
[scene]
gravity = [0.0, 0.0, 0.0]
dt = 0.02

[[body]]
name = "handle, the first"
shape = "t_handle"
inertia = [1.3, 1.4, 2.5]
body_angular_velocity = [0.05, 5.0, 0.05]

[[body]]
name = "box"
shape = "box"
angular_velocity = [0.3, 0.2, 4.0]

[[kick]]
body = "box"
time = 0.5
angular_impulse = [0.2, 0.0, 0.0]

[[change]]
time = 1.0
gyroscopic = false
"""


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture
def scene_file(tmp_path) -> Path:
    path = tmp_path / "two.toml"
    path.write_text(SCENE)
    return path


def test_simulate_on_a_scene_file_traces_what_run_traces(scene_file, tmp_path):
    cli_trace, api_trace = tmp_path / "cli.csv", tmp_path / "api.csv"
    result = _cli("run", str(scene_file), "--integrator", "im4", "--dt", "0.01", "--duration", "1.5", "--trace",
                  str(cli_trace))  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = spinlab.simulate(scene_file, integrator="im4", h=0.01, duration=1.5)
    assert run.trace(api_trace) == api_trace
    assert api_trace.read_bytes() == cli_trace.read_bytes()
    assert run.q.shape == (151, 2, 4) and run.names == ("handle, the first", "box") and run.failure is None


def test_simulate_with_the_scenes_own_integrators_traces_what_run_traces(scene_file, tmp_path):
    cli_trace, api_trace = tmp_path / "cli.csv", tmp_path / "api.csv"
    result = _cli("run", str(scene_file), "--duration", "0.5", "--no-gyroscopic", "--trace", str(cli_trace))
    assert result.returncode == 0, result.stderr
    spinlab.simulate(str(scene_file), integrator=None, duration=0.5, gyroscopic=False).trace(api_trace)
    assert api_trace.read_bytes() == cli_trace.read_bytes()


def test_a_comparison_steps_each_integrator_as_it_steps_alone():
    names = ["implicit_midpoint", "rkmk4", "euler"]
    comparison = spinlab.compare("t_handle", names, h=0.05, duration=2.0)
    assert list(comparison) == names and comparison.failures == {}
    for name in names:
        alone = spinlab.simulate("t_handle", name, h=0.05, duration=2.0)
        both = comparison[name]
        assert both.names == alone.names == ("handle",)
        for field in ("t", "q", "omega_world", "omega_body", "momentum", "energy", "flips"):
            np.testing.assert_array_equal(getattr(both, field), getattr(alone, field), err_msg=field)
        for field in ("energy", "momentum", "orientation"):
            np.testing.assert_array_equal(getattr(both.errors, field), getattr(alone.errors, field), err_msg=field)


def test_a_comparison_freezes_and_names_a_diverging_integrator_and_the_others_go_on():
    comparison = spinlab.compare("t_handle", ["euler_body", "implicit_midpoint"], h=0.3, duration=12.0)
    failure = comparison.failures["euler_body"]
    assert failure.diverged and 0.0 < failure.t < 12.0 and "energy gained" in failure.reason
    assert str(failure).startswith("diverged at t = ")
    frozen = comparison["euler_body"]
    after = frozen.t > failure.t + 1e-9
    assert after.any() and np.isnan(frozen.errors.energy[after]).all()
    np.testing.assert_array_equal(frozen.q[after], np.broadcast_to(frozen.q[~after][-1], frozen.q[after].shape))
    alone = spinlab.simulate("t_handle", "implicit_midpoint", h=0.3, duration=12.0)
    np.testing.assert_array_equal(comparison["implicit_midpoint"].q, alone.q)


def test_a_comparisons_run_is_of_its_integrator_and_a_run_too_long_to_keep_is_refused_before_any_work():
    comparison = spinlab.compare("t_handle", ["rkmk4", "euler"], h=0.05, duration=0.5)
    assert [run.settings.integrator for run in comparison.values()] == ["rkmk4", "euler"]
    with pytest.raises(spinlab.InputError, match="^duration: .*states kept"):
        spinlab.simulate("cloud", h=1e-3, duration=100.0)


def test_a_family_compares_its_integrators_and_a_torque_leaves_exact_out():
    comparison = spinlab.compare("heavy_top", "all", h=0.05, duration=0.2)
    assert "exact" not in comparison and comparison.left_out == ("exact",)
    assert list(comparison) == [name for name in METHODS if name != "exact"]


def test_the_exact_solution_and_the_flips_come_with_a_run():
    run = spinlab.simulate("t_handle", "im6", h=0.01, duration=8.0)
    assert run.exact is not None
    assert run.errors.orientation[-1, 0] < 1e-8
    np.testing.assert_allclose(run.q[-1], run.exact.q[-1], atol=1e-8)
    np.testing.assert_allclose(run.omega_body[-1], run.exact.omega_body[-1], atol=1e-7)
    np.testing.assert_allclose(run.omega_world[-1], run.exact.omega_world[-1], atol=1e-7)
    assert run.flips[-1, 0] == run.exact.flips[-1, 0] >= 1  # the Dzhanibekov flip
    without = spinlab.simulate("t_handle", "im6", h=0.01, duration=8.0, gyroscopic=False)
    assert without.flips[-1, 0] == 0


def test_a_scene_built_in_code_runs_as_the_same_scene_in_a_file():
    handle = spinlab.Body(shape="t_handle", name="handle", mass=1.0, inertia=np.array([1.3, 1.4, 2.5]),
                          body_angular_velocity=(0.05, 5.0, 0.05), color=[0.85, 0.55, 0.2])  # fmt: skip
    built = spinlab.simulate(spinlab.Scene(bodies=[handle], gravity=[0, 0, 0]), "rkmk4", duration=1.0)
    preset = spinlab.simulate("t_handle", "rkmk4", duration=1.0)
    np.testing.assert_array_equal(built.q, preset.q)
    np.testing.assert_array_equal(built.errors.orientation, preset.errors.orientation)


def test_kicks_and_changes_given_to_simulate_are_the_scene_files():
    in_file = spinlab.simulate("kick", "implicit_midpoint", duration=3.0)
    kicks = [spinlab.Kick("handle", 2.0, angular_impulse=[4.0, 0.0, 0.0])]
    given = spinlab.simulate(spinlab.Scene([spinlab.Body("t_handle", "handle", inertia=[1.3, 1.4, 2.5],
                             body_angular_velocity=[0.05, 0.05, 5.0])]), duration=3.0, kicks=kicks)  # fmt: skip
    np.testing.assert_array_equal(given.q, in_file.q)
    changed = spinlab.simulate("t_handle", duration=1.0, changes=[{"time": 0.0, "gyroscopic": False}])
    off = spinlab.simulate("t_handle", duration=1.0, gyroscopic=False)
    np.testing.assert_array_equal(changed.q, off.q)


def _cli_message(*args: str) -> str:
    """What ``run ARGS`` prints on its one line of stderr, less the command's and the option's names (the API names
    its argument instead) and the pointer to --help."""
    result = _cli("run", *args, "--duration", "0.1")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    line = result.stderr.rstrip("\n").removeprefix("spinlab run: ").removeprefix("error: ")
    return line.removesuffix(" (see 'spinlab run --help')").partition(": ")[2] if line.startswith("argument ") else line


def _same_message(api_message: str, cli_message: str) -> bool:
    """Whether the API's message is the command line's, which cuts a long one with an ellipsis."""
    if cli_message.endswith("…"):
        return api_message.startswith(cli_message[:-1])
    return api_message == cli_message


@pytest.mark.parametrize(
    ("call", "cli", "where"),
    [
        (lambda: spinlab.simulate("t_handle", "leapfrog"), ("t_handle", "--integrator", "leapfrog"), "integrator"),
        (lambda: spinlab.simulate("t_handle", h=-1), ("t_handle", "--dt", "-1"), "h"),
        (lambda: spinlab.simulate("t_handle", duration="x"), ("t_handle", "--dt", "x"), "duration"),
        (lambda: spinlab.compare("t_handle", "alll"), ("t_handle", "--integrator", "alll"), "integrators"),
        (lambda: spinlab.simulate("t_handel"), ("t_handel",), None),
    ],
)
def test_a_bad_argument_raises_one_error_with_the_command_lines_message(call, cli, where):
    with pytest.raises(spinlab.InputError) as raised:
        call()
    message = str(raised.value)
    assert raised.value.where == where or where is None
    assert _same_message(message.removeprefix(f"{where}: ") if where else message, _cli_message(*cli))


def test_a_mistake_in_a_scene_reads_as_the_files(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[[body]]\nshape = "box"\nmass = -1.0\n')
    with pytest.raises(spinlab.InputError) as from_file:
        spinlab.simulate(path)
    assert _same_message(str(from_file.value), _cli_message(str(path)))
    with pytest.raises(spinlab.InputError) as from_code:
        spinlab.simulate(spinlab.Scene([spinlab.Body("box", mass=-1.0)]))
    assert str(from_code.value) == str(from_file.value).replace(str(path), "Scene", 1)
    with pytest.raises(spinlab.InputError, match="kicks: key 'kick\\[0\\]"):
        spinlab.simulate("t_handle", kicks=[spinlab.Kick("nobody", 1.0, angular_impulse=[1, 0, 0])])
    with pytest.raises(spinlab.InputError, match="must be an integrator's name"):
        spinlab.simulate("t_handle", integrator=4)
    with pytest.raises(spinlab.InputError, match="several integrators: use spinlab.compare"):
        spinlab.simulate("t_handle", integrator="all")


def test_integrators_lists_every_method_with_its_claims():
    listed = spinlab.integrators()
    assert [info.name for info in listed] == list(CLAIMS)
    rkmk4 = next(info for info in listed if info.name == "rkmk4")
    assert rkmk4.order == 4 and rkmk4.family == "methods" and rkmk4.description == describe(CLAIMS["rkmk4"])
    assert next(info for info in listed if info.name == "physx").family == "engines"


def test_to_pandas_has_a_row_per_body_per_step():
    pd = pytest.importorskip("pandas")
    run = spinlab.simulate("compare", None, duration=0.2)
    frame = run.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == len(run.t) * len(run.names)
    assert list(frame.columns[:13]) == "t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy".split(",")
    last = frame[frame.t == run.t[-1]]
    np.testing.assert_array_equal(last[["qw", "qx", "qy", "qz"]].to_numpy(), run.q[-1])
    np.testing.assert_array_equal(last.orientation_error.to_numpy(), run.errors.orientation[-1])


def test_plots_draw_the_windows_plots_in_the_integrators_colours():
    pytest.importorskip("matplotlib")
    from spinlab.figures import _hex
    from spinlab.scene.model.palette import INTEGRATOR_SRGB, integrator_color

    comparison = spinlab.compare("t_handle", ["implicit_midpoint", "euler"], h=0.05, duration=2.0)
    figure = comparison.plot()
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == ["energy error |ΔE|/E", "L error |ΔL|/|L|", "orientation error (rad)",
                      "herpolhode (ω in the invariable plane, rad/s)"]  # fmt: skip
    energy = figure.axes[0]
    assert [line.get_label() for line in energy.get_lines()] == ["implicit_midpoint", "euler"]
    assert energy.get_lines()[1].get_color() == INTEGRATOR_SRGB["euler"] == _hex(integrator_color("euler", 0))
    assert energy.get_yscale() == "log"
    herpolhode = figure.axes[3]
    assert [line.get_label() for line in herpolhode.get_lines()] == ["implicit_midpoint", "exact", "euler"]
    one = comparison["euler"].plot(["orientation"])
    assert len(one.axes) == 1 and len(one.axes[0].get_lines()) == 1
    with pytest.raises(spinlab.InputError, match="no such plot"):
        comparison.plot(["energi"])


def test_a_runs_video_is_records_and_plays_inline(tmp_path):
    av = pytest.importorskip("av")
    run = spinlab.simulate("t_handle", duration=0.5)
    video = run.video(tmp_path / "t.mp4", size=(96, 64), fps=8)
    assert video.path == tmp_path / "t.mp4" and video.frames == 4 and video.size == (96, 64)
    with av.open(str(video.path)) as container:
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    assert len(frames) == 4 and frames[-1].shape == (64, 96, 3) and frames[-1].std() > 1.0  # drawn, not blank
    html = video._repr_html_()
    assert html.startswith('<video width="96" height="64"') and "data:video/mp4;base64," in html


@pytest.mark.parametrize(
    ("name", "shown"), [("t.webm", "data:video/webm;base64,"), ("t.gif", "data:image/gif;base64,")]
)
def test_a_runs_video_as_webm_or_gif_shows_as_such(tmp_path, name, shown):
    pytest.importorskip("av")
    video = spinlab.simulate("t_handle", duration=0.25).video(tmp_path / name, size=(96, 64), fps=8)
    assert video.frames == 2 and shown in video._repr_html_()


def test_the_api_modules_examples_run():
    failed, tried = doctest.testmod(api, optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failed == 0


def test_import_spinlab_loads_the_api_only_when_asked():
    code = (
        "import sys, spinlab; assert 'numpy' not in sys.modules; spinlab.simulate; assert 'spinlab.api' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    with pytest.raises(AttributeError, match="no attribute 'simulat'"):
        spinlab.simulat  # noqa: B018 - the attribute read is the test
