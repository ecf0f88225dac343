"""`record` under interrupts, output faults, extreme arguments and blow-ups: `main.py record` run as a user runs it,
the MP4 decoded back and counted, the folder listed for temporary files."""

import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spinlab.render.record import MAX_FPS, MIN_FPS, frame_count
from spinlab.render.video import read_video_info
from spinlab.render.video_file import record_scene
from spinlab.scene.files.limits import MAX_FRAMES, NO_LIMITS_VARIABLE
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]
SMALL = ("--size", "160x90")
OLD_BYTES = b"an older file at the target name"
HANG_SECONDS = HANG_S  # guards against a hang only (tests/hang.py); nothing asserts on time
INTERRUPTS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
BLOW_UP_SCENE = """\
[[body]]
name = "spinner"
shape = "t_handle"
angular_velocity = [0.0, 500.0, 5.0]
"""
# Wraps main.py so that the first frame never comes: the interrupt lands after the video writer has made its
# temporary file and before any frame is written, as when a person presses Ctrl-C during the first, slowest frame.
NO_FIRST_FRAME = """\
import sys, time
sys.path.insert(0, sys.argv[1])
import spinlab.render.record

def first_frame_never_comes(*args, **kwargs):
    time.sleep(600)
    yield from ()

spinlab.render.record.render_frames = first_frame_never_comes
from spinlab.commands.cli import main
sys.exit(main(sys.argv[2:]))
"""

# Wraps main.py so that a stop signal comes the instant the video writer's temporary file exists, before anything
# owns it, while a thread other than the main one runs (as OpenBLAS's, numba's or llvmpipe's do) to take it: Python
# runs the handler in the main thread whichever thread took the signal. It waits until the handler has run.
SIGNAL_AS_THE_FILE_IS_MADE = """\
import os, signal, sys, tempfile, threading, time
sys.path.insert(0, sys.argv[1])
from spinlab.scene.process import interrupts

signum = int(sys.argv[2])
threading.Thread(target=threading.Event().wait, daemon=True).start()
mkstemp = tempfile.mkstemp

def mkstemp_then_signal(*args, **kwargs):
    made = mkstemp(*args, **kwargs)
    if kwargs.get("prefix", "").startswith(".spinlab-"):
        os.kill(os.getpid(), signum)
        for _ in range(100_000):  # a bound on polls, not on time
            if interrupts._pending is not None:
                break
            time.sleep(0.001)
    return made

tempfile.mkstemp = mkstemp_then_signal
from spinlab.commands.cli import main
sys.exit(main(sys.argv[3:]))
"""


def _command(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "main.py"), *args]


def _run(*args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run(_command(*args), capture_output=True, text=True, cwd=ROOT, timeout=HANG_SECONDS, **options)


def _leftovers(folder: Path) -> list[str]:
    """Temporary files (``.spinlab-<pid>-<random>.tmp…``) in ``folder``."""
    return sorted(name for name in os.listdir(folder) if name.startswith(".") and ".tmp" in name)


def _assert_one_line(stderr: str) -> None:
    assert stderr.count("\n") == 1 and stderr.endswith("\n"), stderr
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr


def _wait_for(condition, process: subprocess.Popen) -> None:
    """Poll ``condition`` until it holds (the process must still be running meanwhile)."""
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"the process ended ({process.returncode}) before the condition held: {out} {err}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the condition never held")
        time.sleep(0.02)


def _finish(process: subprocess.Popen) -> tuple[str, str]:
    try:
        return process.communicate(timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("the process did not stop after the interrupt")


# -- interrupts ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", INTERRUPTS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupt_mid_recording_leaves_a_playable_file_of_the_frames_written(tmp_path, signum):
    out = tmp_path / "clip.mp4"
    out.write_bytes(OLD_BYTES)
    process = subprocess.Popen(
        _command("record", "t_handle", "--out", str(out), "--duration", "600", *SMALL),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip

    def frames_encoded() -> bool:
        # The muxer writes the temporary file only once the encoder has produced packets, i.e. frames were written.
        temporary = [tmp_path / name for name in _leftovers(tmp_path)]
        return any(path.exists() and path.stat().st_size > 0 for path in temporary)

    _wait_for(frames_encoded, process)
    process.send_signal(signum)
    stdout, stderr = _finish(process)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    reported = re.search(r"wrote .*clip\.mp4: (\d+) frames at 60 fps, 160x90, .*\(interrupted", stdout)
    assert reported, stdout
    frames, width, height, fps = read_video_info(out)
    assert frames == int(reported.group(1)) >= 1 and (width, height, fps) == (160, 90, 60)
    assert frames < 600 * 60  # it did stop early
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("signum", INTERRUPTS, ids=lambda s: signal.Signals(s).name)
def test_an_interrupt_before_the_first_frame_leaves_nothing_and_keeps_the_old_file(tmp_path, signum):
    out = tmp_path / "clip.mp4"
    out.write_bytes(OLD_BYTES)
    wrapper = tmp_path / "no_first_frame.py"
    wrapper.write_text(NO_FIRST_FRAME)
    process = subprocess.Popen(
        [sys.executable, str(wrapper), str(ROOT), "record", "t_handle", "--out", str(out), *SMALL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    _wait_for(lambda: len(_leftovers(tmp_path)) > 0, process)  # the writer is open, no frame can come
    process.send_signal(signum)
    stdout, stderr = _finish(process)
    assert process.returncode == 130, stderr
    assert stdout == "" and "interrupted" in stderr
    _assert_one_line(stderr)
    assert out.read_bytes() == OLD_BYTES
    assert sorted(os.listdir(tmp_path)) == ["clip.mp4", "no_first_frame.py"]


@pytest.mark.parametrize(
    ("kind", "signum"), [("mp4", signal.SIGINT), ("webm", signal.SIGTERM), ("gif", signal.SIGHUP)],
    ids=lambda value: value if isinstance(value, str) else signal.Signals(value).name,
)  # fmt: skip
def test_an_interrupt_as_the_temporary_file_is_made_leaves_nothing_in_any_format(tmp_path, kind, signum):
    out = tmp_path / f"clip.{kind}"
    out.write_bytes(OLD_BYTES)
    wrapper = tmp_path / "signal_as_the_file_is_made.py"
    wrapper.write_text(SIGNAL_AS_THE_FILE_IS_MADE)
    process = subprocess.run(
        [sys.executable, str(wrapper), str(ROOT), str(int(signum)), "record", "t_handle", "--out", str(out), *SMALL,
         "--duration", "0.05"],
        capture_output=True, text=True, cwd=ROOT, timeout=HANG_SECONDS,
    )  # fmt: skip
    assert process.returncode == 130, process.stderr
    assert process.stdout == "" and "interrupted" in process.stderr
    _assert_one_line(process.stderr)
    assert out.read_bytes() == OLD_BYTES
    assert sorted(os.listdir(tmp_path)) == sorted([out.name, wrapper.name])


# -- output faults ------------------------------------------------------------------------------------------------


def _limit_file_size(limit_bytes: int):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return preexec


def test_a_file_size_limit_is_one_line_exit_1_and_leaves_the_old_file(tmp_path):
    out = tmp_path / "clip.mp4"
    out.write_bytes(OLD_BYTES)
    # 200 kB is a few frames at 640x360; the process ignores SIGXFSZ, so the write fails with EFBIG instead.
    result = _run(
        "record", "t_handle", "--out", str(out), "--duration", "20", "--size", "640x360",
        preexec_fn=_limit_file_size(200_000),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    _assert_one_line(result.stderr)
    assert f"{out}: cannot be written: the file is too large" in result.stderr  # the target, not the temporary
    assert out.read_bytes() == OLD_BYTES
    assert _leftovers(tmp_path) == []


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="no user and mount namespaces here to mount a small tmpfs")
def test_a_full_disk_is_one_line_exit_1_and_leaves_the_old_file(tmp_path):
    # A 256 kB tmpfs in a private mount namespace, an old file on it; the listing is taken before it vanishes.
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f'mount -t tmpfs -o size=256k none "{disk}" && printf "{OLD_BYTES.decode()}" > "{disk}/clip.mp4" && '
        f'{sys.executable} {ROOT / "main.py"} record t_handle --out "{disk}/clip.mp4" --duration 20 --size 640x360; '
        f'status=$?; echo "listing: $(ls -A "{disk}" | tr "\\n" " ")" >&2; cat "{disk}/clip.mp4" >&2; exit $status'
    )
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=HANG_SECONDS
    )
    error, listing, old = result.stderr.split("\n", 2)
    assert result.returncode == 1, result.stderr
    assert error.endswith(f"{disk}/clip.mp4: cannot be written: the disk is full") and "Traceback" not in error
    assert listing == "listing: clip.mp4 "  # no temporary file left
    assert old == OLD_BYTES.decode()


def test_a_directory_that_refuses_files_is_one_line(tmp_path):
    # /sys refuses new files with EACCES even to root, for whom os.access still says it is writable: the fault is
    # met when the temporary file is made (exit 1); a user whom os.access refuses is stopped at the argument (2).
    out = Path("/sys/spinlab-test-clip.mp4")
    if not Path("/sys").is_dir() or out.exists():
        pytest.skip("no /sys to refuse a file")
    result = _run("record", "t_handle", "--out", str(out), "--duration", "0.1", *SMALL)
    assert result.returncode == (1 if os.access("/sys", os.W_OK) else 2), result.stderr
    _assert_one_line(result.stderr)
    assert str(out) in result.stderr and not out.exists()


def test_a_directory_at_the_target_is_refused_and_kept(tmp_path):
    folder = tmp_path / "clip.mp4"
    folder.mkdir()
    (folder / "inside").write_bytes(OLD_BYTES)
    result = _run("record", "t_handle", "--out", str(folder), "--duration", "0.1", *SMALL)
    assert result.returncode == 2, result.stderr
    _assert_one_line(result.stderr)
    assert "is a directory" in result.stderr
    assert os.listdir(tmp_path) == ["clip.mp4"] and (folder / "inside").read_bytes() == OLD_BYTES


def test_the_scene_being_read_is_refused_as_the_output_by_any_spelling(tmp_path, monkeypatch):
    scene_text = (ROOT / "assets" / "scenes" / "t_handle.toml").read_text()
    scene_file = tmp_path / "scene.mp4"  # a scene file may have any name when given as a path
    scene_file.write_text(scene_text)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.mp4").symlink_to(scene_file)
    os.link(scene_file, tmp_path / "hard.mp4")
    result = _run("record", str(scene_file), "--out", str(scene_file), "--duration", "0.1", *SMALL)
    assert result.returncode == 2, result.stderr
    _assert_one_line(result.stderr)
    assert "--out: is the scene file being read" in result.stderr
    monkeypatch.chdir(tmp_path)
    scene = load_scene("./scene.mp4")
    for out in ("scene.mp4", "./sub/../scene.mp4", str(scene_file), "link.mp4", "hard.mp4"):
        with pytest.raises(InputError, match="is the scene file being read"):
            record_scene(scene, Path(out), duration=0.1, size=(160, 90))
    assert scene_file.read_text() == scene_text
    assert sorted(os.listdir(tmp_path)) == ["hard.mp4", "link.mp4", "scene.mp4", "sub"]


def test_the_video_gets_the_umask_permissions(tmp_path):
    out = tmp_path / "clip.mp4"
    result = _run(
        "record", "t_handle", "--out", str(out), "--duration", "0.1", *SMALL, preexec_fn=lambda: os.umask(0o027)
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert read_video_info(out)[0] == 6


# -- limits -------------------------------------------------------------------------------------------------------


def test_frame_count_limits_and_the_way_past_them(monkeypatch):
    monkeypatch.delenv(NO_LIMITS_VARIABLE, raising=False)
    assert frame_count(10.0, 60.0) == 600
    assert frame_count(0.001, 60.0) == 1  # always at least one frame
    assert frame_count(MAX_FRAMES / 60.0, 60.0) == MAX_FRAMES
    with pytest.raises(InputError, match=rf"--duration × --fps: asks for .* video frames.*{NO_LIMITS_VARIABLE}=1"):
        frame_count(MAX_FRAMES / 60.0 + 1.0, 60.0)
    for fps in (MIN_FPS / 2, MAX_FPS * 2, 0.0, -1.0, float("nan"), float("inf"), 1e9):
        with pytest.raises(InputError, match="--fps: must be between 0.01 and 1000"):
            frame_count(1.0, fps)
    for duration in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(InputError, match="--duration"):
            frame_count(duration, 60.0)
    monkeypatch.setenv(NO_LIMITS_VARIABLE, "1")
    assert frame_count(1e6, MAX_FPS) == 10**9  # the count is lifted…
    with pytest.raises(InputError, match="--fps"):
        frame_count(1.0, MAX_FPS * 2)  # …the frame rate's range is not


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--fps", "1e9", "--duration", "1e9"), "--fps"),  # hung for ever before
        (("--fps", "1000", "--duration", "1e4"), "--duration × --fps"),
        (("--fps", "0.01", "--duration", "1e7"), "--duration"),  # 6·10⁸ steps of the scene's h
    ],
)
def test_too_many_frames_or_steps_are_refused_before_any_work(tmp_path, args, names):
    out = tmp_path / "clip.mp4"
    result = _run("record", "t_handle", "--out", str(out), *args, env={**os.environ, NO_LIMITS_VARIABLE: ""})
    assert result.returncode == 2, result.stderr
    _assert_one_line(result.stderr)
    assert f"error: {names}:" in result.stderr
    assert os.listdir(tmp_path) == []


# -- numerical failure and warnings -------------------------------------------------------------------------------


def test_a_body_that_blows_up_is_one_line_exit_1_and_no_file(tmp_path):
    scene = tmp_path / "blow_up.toml"
    scene.write_text(BLOW_UP_SCENE)
    out = tmp_path / "clip.mp4"
    out.write_bytes(OLD_BYTES)
    result = _run("record", str(scene), "--out", str(out), "--integrator", "euler", "--duration", "5", *SMALL)
    assert result.returncode == 1, result.stderr
    _assert_one_line(result.stderr)  # no RuntimeWarning from drawing the overflowing state on the way
    assert re.search(r"at t = [0-9.]+ s, body 'spinner' \(euler\): .*not finite", result.stderr), result.stderr
    assert out.read_bytes() == OLD_BYTES
    assert sorted(os.listdir(tmp_path)) == ["blow_up.toml", "clip.mp4"]


@pytest.mark.parametrize(
    "args",
    [
        ("compare",),
        ("heavy_top", "--integrator", "all"),
        ("hierarchy", "--no-gyroscopic"),
        ("stable_minor", "--integrator", "euler", "--fps", "7.5"),
    ],
    ids=lambda args: "-".join(args),
)
def test_record_writes_nothing_on_stderr(tmp_path, args):
    out = tmp_path / "clip.mp4"
    result = _run("record", *args, "--out", str(out), "--duration", "1", *SMALL)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no warning of any kind; the one line is the report on stdout
    left_out = ["left out: exact (it takes no torque, and this scene has one)"] if "all" in args else []
    assert result.stdout.startswith(f"wrote {out}:") and result.stdout.splitlines()[1:] == left_out
    assert read_video_info(out)[0] == (8 if "7.5" in args else 60)
    assert os.listdir(tmp_path) == ["clip.mp4"]
