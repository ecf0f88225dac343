"""One fuzz case per command: lay out the scene and the output folder, draw the arguments, run, and list every
way the result breaks the contract (see :mod:`tests.fuzz.harness`).

Each case works in a fresh folder: ``in/`` holds the scene, ``out/`` is the working directory and the only place
outputs may appear. The durations are drawn as a number of steps of the step the run will use, so that a valid
run stays short; durations past the step limit (which must be refused at once) are drawn too.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import tempfile
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from tests.fuzz.harness import (
    HANG_SECONDS,
    Hang,
    Outcome,
    check_trace,
    invoke,
    invoke_subprocess,
    problems,
    project_frame,
    table_problems,
)
from tests.fuzz.strategies import (
    INTEGRATOR_NAMES,
    SceneFile,
    extra_args,
    number_args,
    odd_strings,
    output_targets,
    record_sizes,
    weighted,
)
from tests.hang import hang_message

__all__ = [
    "Workspace", "workspace", "expectation", "run_argv", "check_run", "run_case", "record_argv", "check_record",
    "record_case", "check_gui", "gui_case", "save_argv", "check_save", "save_case", "replay", "template_of",
    "describe", "BODY_STEPS_BUDGET",
]  # fmt: skip


def _on_alarm(_signum, _frame):
    raise Hang()


MAX_STEPS = 10_000_000  # scene/files/limits.py; a duration asking for more must be refused before any work
BODY_STEPS_BUDGET = 20_000  # body-steps a valid fuzz run may take, so that each example stays well under a second
EXISTING = b"an earlier file, which a failed write must keep\n"
LINKED = "linked/target.out"  # what out/link.out points to (design.md: an output that is a link is written through)


@dataclass
class Workspace:
    root: Path
    out: Path
    scene: SceneFile
    scene_arg: str
    scene_path: Path | None  # the regular file written, when there is one
    links: list[Path] = field(default_factory=list)  # outputs made symbolic links: each must stay one

    def target(self, symbolic: str) -> str:
        """An output argument from :func:`output_targets`'s symbolic names."""
        if symbolic == "<existing>":
            path = self.out / "existing.out"
            path.write_bytes(EXISTING)
            return str(path)
        if symbolic == "<missing-dir>":
            return str(self.out / "no" / "such" / "file.out")
        if symbolic == "<dir>":
            return str(self.out)
        if symbolic == "<scene>":
            return str(self.scene_path or self.out / "scene-like.out")
        if symbolic == "<scene-relative>":  # the same file by another spelling
            return os.path.relpath(self.scene_path, self.out) if self.scene_path else "../in/scene-like.out"
        if symbolic in ("<link>", "<dangling-link>"):  # written through: the file linked to, the link kept
            (self.out / "linked").mkdir(exist_ok=True)
            if symbolic == "<link>":
                (self.out / LINKED).write_bytes(EXISTING)
            (self.out / "link.out").symlink_to(self.out / LINKED)
            self.links.append(self.out / "link.out")
            return str(self.out / "link.out")
        if symbolic == "<fifo>":  # nobody reads it: refused at once, never waited on
            os.mkfifo(self.out / "fifo.out")
            return str(self.out / "fifo.out")
        return symbolic  # relative to the working directory, out/, or a device

    def files(self) -> dict[str, bytes | None]:
        """Every file under out/ (hidden ones included) and its content."""
        found = {}
        for path in sorted(self.out.rglob("*")):
            if path.is_file():
                found[str(path.relative_to(self.out))] = path.read_bytes() if path.stat().st_size < 1 << 24 else None
        return found


@contextlib.contextmanager
def workspace(scene: SceneFile):
    with tempfile.TemporaryDirectory(prefix="spinlab-fuzz-") as root:
        root_path = Path(root)
        scene_dir, out = root_path / "in", root_path / "out"
        scene_dir.mkdir()
        out.mkdir()
        scene_path = None
        if scene.kind == "file":
            scene_path = scene_dir / "scene.toml"
            scene_path.write_bytes(scene.data)
            arg = str(scene_path)
        elif scene.kind == "dir":
            (scene_dir / "folder.toml").mkdir()
            arg = str(scene_dir / "folder.toml")
        elif scene.kind == "fifo":
            os.mkfifo(scene_dir / "pipe.toml")
            arg = str(scene_dir / "pipe.toml")
        elif scene.kind == "missing":
            arg = str(scene_dir / "missing.toml")
        elif scene.kind == "loop":
            (scene_dir / "loop.toml").symlink_to(scene_dir / "loop.toml")
            arg = str(scene_dir / "loop.toml")
        else:  # a device or a preset name
            arg = scene.arg
        yield Workspace(root_path, out, scene, arg, scene_path)


@dataclass
class Expectation:
    """What the scene file says, read back by tomllib: its step (``None`` when unreadable) and body names."""

    h: float | None
    names: list[str] | None


def expectation(scene: SceneFile) -> Expectation:
    if scene.kind != "file":
        return Expectation(1.0 / 60.0 if scene.kind == "preset" else None, None)
    try:
        document = tomllib.loads(scene.data.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return Expectation(None, None)
    settings = document.get("scene", {})
    dt = settings.get("dt", 1.0 / 60.0) if isinstance(settings, dict) else None
    h = float(dt) if isinstance(dt, int | float) and not isinstance(dt, bool) and 0 < abs(dt) < 1e300 else None
    bodies = document.get("body")
    names = None
    if isinstance(bodies, list) and all(isinstance(b, dict) for b in bodies):
        names = [b.get("name", f"body{i}") for i, b in enumerate(bodies)]
        names = names if all(isinstance(n, str) for n in names) else None
    return Expectation(h, names)


def _parse_float(text: str | None) -> float | None:
    try:
        value = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value > 0 else None


def _duration(draw, h: float | None, bodies: int) -> str:
    """A duration: a few steps of ``h`` mostly; else a raw number, kept fast unless it is past the step limit."""
    plan = draw(st.integers(0, 9))
    steps = draw(st.integers(1, 30))
    if plan < 7 and h is not None and 0 < steps * h < math.inf:
        fraction = draw(st.sampled_from((1.0, 1.0, 0.5, 0.49, 1.5, 1e-9)))
        return repr(steps * h * fraction)
    raw = draw(number_args(st.floats(0.01, 0.5)))
    value = _parse_float(raw)
    if value is not None and h is not None:
        estimate = value / h
        if estimate <= MAX_STEPS and estimate * max(bodies, 1) > BODY_STEPS_BUDGET:
            return repr(steps * h)
    return raw


def _output_problems(ws: Workspace, outcome: Outcome, before: dict, allowed: set[str]) -> list[tuple[str, str]]:
    """Files left in out/: temporary files never; new files only those asked for, and only on success (or, for
    ``--integrator all``, those of the integrators that succeeded); files already there kept on failure."""
    after = ws.files()
    found = []
    if "link.out" in allowed:
        allowed = allowed | {LINKED}
    for link in ws.links:
        if not link.is_symlink():
            found.append(("symlink-output-replaced", f"{link.name} is no longer a link (status {outcome.status})"))
    for name in after:
        if Path(name).name.startswith(".") and name.endswith(".tmp") or ".tmp" in Path(name).suffixes:
            found.append(("leftover-temp-file", f"{name} (status {outcome.status})"))
        elif name not in before and name not in allowed:
            found.append(("unexpected-output", f"{name} (status {outcome.status}, allowed {sorted(allowed)})"))
    for name, content in before.items():
        if name not in after:
            found.append(("existing-file-removed", f"{name} (status {outcome.status})"))
        elif outcome.status != 0 and after[name] != content and name not in allowed:
            found.append(("existing-file-changed-on-failure", f"{name} (status {outcome.status})"))
    if ws.scene_path is not None and ws.scene_path.read_bytes() != ws.scene.data:
        found.append(("scene-file-modified", f"{ws.scene_arg} (status {outcome.status})"))
    return found


def _in_out(ws: Workspace, argument: str) -> str | None:
    """``argument`` relative to out/ when it names a file in it (directly), else ``None``."""
    path = Path(argument) if os.path.isabs(argument) else ws.out / argument
    try:
        relative = path.parent.resolve().relative_to(ws.out.resolve())
    except (ValueError, OSError):
        return None
    return None if str(relative) != "." else path.name


def _option(argv: list[str], name: str) -> str | None:
    """The value given to option ``name`` in ``argv`` (the last one), or ``None``."""
    value = None
    for i, token in enumerate(argv[:-1]):
        if token == name:
            value = argv[i + 1]
    return value


def _is_help(outcome: Outcome) -> bool:
    """Whether the command printed its help (``-h`` among the arguments) instead of doing anything."""
    return outcome.status == 0 and outcome.stdout.startswith("usage:")


def run_argv(draw, ws: Workspace, expect: Expectation) -> list[str]:
    argv = ["run", ws.scene_arg]
    tiny = st.sampled_from(("1e-30", "1e-20", "1e-45"))  # a scene's kicks then lie beyond 2**52 steps
    dt_arg = draw(weighted((3, st.none()), (2, number_args(st.floats(1e-3, 0.1))), (1, tiny)))
    h = _parse_float(dt_arg) if dt_arg is not None else expect.h
    if dt_arg is not None:
        argv += ["--dt", dt_arg]
    integrator = draw(weighted((8, st.sampled_from((None, None, "all", *INTEGRATOR_NAMES))), (1, odd_strings())))
    if integrator == "all" and expect.names and len(expect.names) > 300:
        # Work bounded by the inputs, not the clock: 'all' sets the scene up once per integrator (~1 ms a body: the
        # closed forms, the graph), and 2000 bodies × 14 integrators took 25 s on a loaded machine.
        integrator = None
    runs = len(INTEGRATOR_NAMES) if integrator == "all" else 1  # 'all' steps the scene once per integrator
    argv += ["--duration", _duration(draw, h, (len(expect.names) if expect.names else 1) * runs)]
    if integrator is not None:
        argv += ["--integrator", integrator]
    if draw(st.integers(0, 3)) == 0:
        argv.append("--no-gyroscopic")
    if draw(st.integers(0, 2)):
        argv += ["--trace", ws.target(draw(output_targets(".csv")))]
    return argv + draw(extra_args())


def check_run(ws: Workspace, argv: list[str], expect: Expectation) -> tuple[Outcome, list[tuple[str, str]]]:
    trace, integrator, dt_arg = (_option(argv, key) for key in ("--trace", "--integrator", "--dt"))
    before = ws.files()
    outcome = invoke(argv, ws.out)
    found = problems(outcome)
    allowed = set()
    relative = _in_out(ws, trace) if trace is not None else None
    if relative is not None and integrator == "all":
        stem, suffix = os.path.splitext(relative)
        allowed = {f"{stem}.{name}{suffix}" for name in INTEGRATOR_NAMES}
    elif relative is not None:
        allowed = {relative}
    if _is_help(outcome):
        allowed = set()
    elif outcome.status in (0, 1) and not outcome.hung and outcome.escaped is None:
        found += _run_output_problems(ws, outcome, trace, allowed, expect, dt_arg, integrator)
    # A failed single run leaves no trace; with every integrator in turn, those that succeeded keep theirs.
    kept = outcome.status == 0 or outcome.status == 1 and integrator == "all"
    found += _output_problems(ws, outcome, before, allowed if kept else set())
    return outcome, found


def run_case(data, scene: SceneFile) -> tuple[Outcome, list[tuple[str, str]]]:
    """``run`` on ``scene`` with drawn arguments; returns the outcome and its problems."""
    expect = expectation(scene)
    with workspace(scene) as ws:
        return check_run(ws, run_argv(data.draw, ws, expect), expect)


def _run_output_problems(ws, outcome, trace, allowed, expect, dt_arg, integrator) -> list[tuple[str, str]]:
    found = []
    if outcome.status == 0 or integrator == "all":
        found += table_problems(outcome.stdout)
    match = re.match(r".*?: (\d+) steps of h = ", outcome.stdout)
    steps = int(match.group(1)) if match else None
    h = _parse_float(dt_arg) if dt_arg is not None else expect.h
    for name in sorted(allowed):
        path = ws.out / name
        if path.exists() and (outcome.status == 0 or integrator == "all"):  # a failed single run kept the old file
            found += check_trace(path, expect.names, steps, h)
        elif outcome.status == 0 and integrator != "all":
            found.append(("trace-missing", f"{name} after exit 0"))
    if outcome.status == 0 and trace is not None:
        if trace == "/dev/full":
            found.append(("full-disk-not-reported", "--trace /dev/full gave exit 0"))
        scene = ws.scene_path is not None and (ws.out / trace).resolve() == ws.scene_path.resolve()
        if trace == str(ws.out) or "/no/such/" in trace or scene:
            found.append(("bad-trace-target-accepted", trace))
    return found


def record_argv(draw, ws: Workspace, expect: Expectation) -> list[str]:
    fps_arg = draw(weighted((3, st.sampled_from(("5", "2", "10"))), (1, number_args(st.sampled_from((5.0, 1.0))))))
    fps = _parse_float(fps_arg)
    frames = draw(st.integers(1, 3))
    if fps is not None and draw(st.integers(0, 5)):
        duration = repr(frames / fps)
    else:
        duration = draw(number_args(st.sampled_from((0.4, 0.2))))
    value = _parse_float(duration)
    if value is not None and fps is not None and value * fps > 4:
        duration = repr(frames / fps)  # keep the video short: the frame limit is tested with junk fps
    value = _parse_float(duration)
    bodies = len(expect.names) if expect.names else 1
    if value is not None and expect.h is not None:
        estimate = value / expect.h
        if estimate <= MAX_STEPS and estimate * bodies > BODY_STEPS_BUDGET:
            duration = repr(expect.h * frames)
    out = ws.target(draw(output_targets(".mp4")))
    argv = ["record", ws.scene_arg, "--out", out, "--duration", duration, "--fps", fps_arg]
    argv += ["--size", draw(record_sizes())]
    if draw(st.integers(0, 9)) < 3:  # the newer options: a camera following a body (the scene's, or not), views
        names = [name for name in expect.names or [] if isinstance(name, str)]
        argv += ["--follow", draw(st.sampled_from(names) | odd_strings() if names else odd_strings())]
    for option in ("--poinsot", "--no-ghost"):
        if draw(st.integers(0, 9)) < 2:
            argv.append(option)
    integrator = draw(weighted((8, st.sampled_from((None, None, "all", "euler", "exact", "im4"))), (1, odd_strings())))
    if integrator is not None:
        argv += ["--integrator", integrator]
    return argv + draw(extra_args())


def check_record(ws: Workspace, argv: list[str], expect: Expectation) -> tuple[Outcome, list[tuple[str, str]]]:
    out = _option(argv, "--out") or ""
    before = ws.files()
    outcome = invoke(argv, ws.out)
    found = problems(outcome, allow_stderr=())
    relative = _in_out(ws, out)
    # Exit 1 with views frozen on the way (a comparison): the whole video is written, as `run --integrator all`
    # keeps the traces of the integrators that did not fail.
    written = outcome.status == 0 or (
        outcome.status == 1 and outcome.stdout.startswith("wrote ") and "\nfailed: " in outcome.stdout
    )
    allowed = {relative} if relative is not None and written else set()
    if _is_help(outcome):
        allowed = set()
    found += _output_problems(ws, outcome, before, allowed)
    if written and not _is_help(outcome):
        found += _video_problems(ws, outcome, out, relative)
    return outcome, found


def record_case(data, scene: SceneFile) -> tuple[Outcome, list[tuple[str, str]]]:
    """``record`` on ``scene``: tiny sizes, a few frames, drawn arguments."""
    expect = expectation(scene)
    with workspace(scene) as ws:
        return check_record(ws, record_argv(data.draw, ws, expect), expect)


def _video_problems(ws, outcome, out, relative) -> list[tuple[str, str]]:
    match = re.search(r": (\S+) frames at (\S+) fps, (\d+)x(\d+), (\S+) s simulated", outcome.stdout)
    if match is None:
        return [("record-stdout", outcome.stdout[:300])]
    if not all(math.isfinite(float(x)) for x in match.groups()):
        return [("record-stdout-nonfinite", outcome.stdout[:300])]
    if out == "/dev/full":
        return [("full-disk-not-reported", "--out /dev/full gave exit 0")]
    if relative is None:
        return []
    import av

    try:
        with av.open(str(ws.out / relative)) as container:
            decoded = sum(1 for _ in container.decode(video=0))
    except Exception as error:  # noqa: BLE001 - PyAV raises its own error classes
        return [("video-unplayable", f"{type(error).__name__}: {error}")]
    if decoded != int(match.group(1)):
        return [("video-frame-count", f"decoded {decoded} frames, stdout says {match.group(1)}")]
    return []


def check_gui(ws: Workspace, argv: list[str], expect: Expectation) -> tuple[Outcome, list[tuple[str, str]]]:
    """``gui`` as a real process without a display: a file ``run`` refuses must be refused with exit 2 before any
    window, and one ``run`` fails on at its first step (a numerical failure) with exit 1 and the same reason, before
    any window; a good one ends in one "no display" line, exit 1."""
    one_step = invoke(["run", ws.scene_arg, "--duration", "1e-40"], ws.out)
    before = ws.files()
    outcome = invoke_subprocess(argv, ws.out)
    found = problems(outcome)
    fails_first_step = one_step.status == 1
    if outcome.status == 1 and "display" not in outcome.stderr and not fails_first_step:
        found.append(("gui-exit1-not-display", outcome.stderr[-300:]))
    if outcome.status == 0:
        found.append(("gui-exit0-without-display", outcome.stderr[-300:]))
    if one_step.status == 2 and outcome.status != 2:
        found.append(("gui-accepts-what-run-refuses", f"run: {one_step.stderr.strip()[:300]}"))
    if fails_first_step and (outcome.status != 1 or "cannot run this scene" not in outcome.stderr):
        found.append(("gui-accepts-what-fails-at-first-step", f"run: {one_step.stderr.strip()[:300]}"))
    found += _output_problems(ws, outcome, before, set())
    return outcome, found


def gui_case(scene: SceneFile) -> tuple[Outcome, list[tuple[str, str]]]:
    with workspace(scene) as ws:
        return check_gui(ws, ["gui", ws.scene_arg], expectation(scene))


SAVE_TARGETS = ("copy.toml", "copy.toml", "copy.toml", "<link>", "<fifo>", "<dir>", "nul\0.toml", "n" * 300 + ".toml",
                "no/such/copy.toml", "copy.txt", "")  # fmt: skip


def save_argv(draw, ws: Workspace, expect: Expectation) -> list[str]:
    """``save SCENE TARGET``: not a command, the window's Save button (scene/files/scene_toml.py's save_scene)."""
    return ["save", ws.scene_arg, draw(st.sampled_from(SAVE_TARGETS))]


def check_save(ws: Workspace, argv: list[str], expect: Expectation) -> tuple[Outcome, list[tuple[str, str]]]:
    """Load the scene as the window does and save it as its Save button does: a scene that loads saves to a plain
    name and loads back the same; an odd place is one line naming it (an ``InputError`` or ``OutputError``), never
    Python's own exception text, a hang or a file left behind."""
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.scene.files.scene_toml import save_scene
    from spinlab.sim.errors import InputError, OutputError

    target = argv[2]
    if target == "<link>":
        (ws.out / "linked").mkdir(exist_ok=True)
        (ws.out / "link.toml").symlink_to(ws.out / "linked" / "target.toml")
        ws.links.append(ws.out / "link.toml")
    elif target == "<fifo>":
        os.mkfifo(ws.out / "fifo.toml")
    path = {"<link>": "link.toml", "<fifo>": "fifo.toml", "<dir>": "."}.get(target, target)
    before = ws.files()
    status, stderr, found, escaped = 0, "", [], None
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    saved_cwd = os.getcwd()
    try:
        os.chdir(ws.out)
        try:
            scene = load_scene(ws.scene_arg)
        except InputError as error:
            return Outcome(list(argv), 2, "", f"not loaded: {error}\n"), []
        try:
            written = save_scene(path, scene, tuple(body.integrator for body in scene.bodies), scene.h)
        except (InputError, OutputError) as error:
            status, stderr = (2 if isinstance(error, InputError) else 1), f"{error}\n"
            if target == "copy.toml":
                found.append(("save-refuses-a-scene-that-loaded", stderr))
            if re.search(r"\[Errno|Error: |\n.", stderr) or (path and path.replace("\0", "\\x00")[:30] not in stderr):
                found.append(("save-message-not-one-line-naming-the-path", stderr[:300]))
        else:
            try:
                found += [("save-round-trip-differs", d) for d in _differences(scene, load_scene(written))[:1]]
            except InputError as error:
                found.append(("saved-file-refused-by-its-reader", str(error)[:600]))
    except Hang:
        found.append(("hang", hang_message("save")))
        status = None
    except Exception as error:  # noqa: BLE001 - an escape is exactly what is looked for
        escaped = "".join(traceback.format_exception(error))[-4000:]
        outcome = Outcome(list(argv), None, "", "", escaped=escaped, escaped_type=type(error).__name__,
                          escaped_where=project_frame(error))  # fmt: skip
        return outcome, problems(outcome)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(saved_cwd)
    outcome = Outcome(list(argv), status, "", stderr)
    allowed = {"copy.toml", "link.toml", "linked/target.toml"} if status == 0 else set()
    return outcome, found + _output_problems(ws, outcome, before, allowed)


def _differences(scene, back) -> list[str]:
    """What differs between ``scene`` and ``back`` (the saved file read again): every value exactly, but the
    orientation, which the reader normalises again (to an ulp)."""
    import numpy as np

    found = []
    if not (
        np.array_equal(scene.gravity, back.gravity) and scene.h == back.h and len(scene.bodies) == len(back.bodies)
    ):
        return [f"scene: gravity {scene.gravity} h {scene.h!r} {len(scene.bodies)} bodies, read back {back.gravity} "
                f"{back.h!r} {len(back.bodies)}"]  # fmt: skip
    for body, copy in zip(scene.bodies, back.bodies, strict=True):
        for name in ("name", "shape", "sizes", "mass", "parent", "color", "kinematic", "integrator"):
            if getattr(body, name) != getattr(copy, name):
                found.append(f"body {body.name!r}.{name}: {getattr(body, name)!r} read back {getattr(copy, name)!r}")
        for name in ("inertia_com", "inertia_body", "position", "omega_parent", "pivot"):
            a, b = getattr(body, name), getattr(copy, name)
            if (a is None) != (b is None) or a is not None and not np.array_equal(a, b):
                found.append(f"body {body.name!r}.{name}: {a!r} read back {b!r}")
        if not np.allclose(body.orientation, copy.orientation, rtol=0.0, atol=1e-15):
            found.append(f"body {body.name!r}.orientation: {body.orientation!r} read back {copy.orientation!r}")
    for kick, copy in zip(scene.kicks, back.kicks, strict=True):
        same = (
            kick.body == copy.body and kick.time == copy.time and kick.counteract_children == copy.counteract_children
        )
        for name in ("angular_impulse", "impulse", "point"):
            a, b = getattr(kick, name), getattr(copy, name)
            same = same and ((a is None) == (b is None)) and (a is None or np.array_equal(a, b))
        if not same:
            found.append(f"kick on {kick.body!r} at {kick.time!r}: {kick!r} read back {copy!r}")
    if scene.changes != back.changes:
        found.append(f"changes {scene.changes!r} read back {back.changes!r}")
    return found


def save_case(data, scene: SceneFile) -> tuple[Outcome, list[tuple[str, str]]]:
    """The window's Save on ``scene`` to a drawn place."""
    expect = expectation(scene)
    with workspace(scene) as ws:
        return check_save(ws, save_argv(data.draw, ws, expect), expect)


CHECKS = {"run": check_run, "record": check_record, "gui": check_gui, "save": check_save}


def replay(scene: SceneFile, template: list[str]) -> tuple[Outcome, list[tuple[str, str]]]:
    """Run again a case stored as ``template``: its argv with ``{SCENE}`` and ``{OUT}`` for the paths of the
    workspace (an ``existing.out`` is created again when the argv names it)."""
    with workspace(scene) as ws:
        argv = [a.replace("{SCENE}", ws.scene_arg).replace("{OUT}", str(ws.out)) for a in template]
        if any(a.endswith("/existing.out") for a in argv):
            ws.target("<existing>")
        return CHECKS[argv[0]](ws, argv, expectation(scene))


def template_of(outcome: Outcome, scene_arg: str, out: Path) -> list[str]:
    """The inverse of :func:`replay`'s substitution."""
    return ["{SCENE}" if a == scene_arg else a.replace(str(out), "{OUT}") for a in outcome.argv]


def describe(scene: SceneFile, outcome: Outcome, found: list[tuple[str, str]]) -> str:
    """A failure as the test reports it: the problems, the command, the scene text and stderr's end."""
    text = scene.data.decode("utf-8", "replace")
    if len(text) > 3000:
        text = text[:3000] + f"\n… ({len(scene.data)} bytes in all)"
    problems_text = "\n".join(f"  [{kind}] {detail[:1500]}" for kind, detail in found)
    return (
        f"{len(found)} problem(s):\n{problems_text}\n"
        f"command: {outcome.argv!r}\nstatus: {outcome.status}\nscene ({scene.kind} {scene.arg!r} {scene.mangled}):\n"
        f"{text}\nstderr (end): {outcome.stderr[-800:]}\nstdout (start): {outcome.stdout[:500]}"
    )
