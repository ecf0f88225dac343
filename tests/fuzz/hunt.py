"""Fuzz for a long time and collect every distinct failure class, with the smallest example of each.

    .venv/bin/python -m tests.fuzz.hunt --examples 2000 --report findings.md [--state state.json] [--shrink 60]

Each example runs ``run`` (mostly), ``record`` or ``gui`` on a generated scene and arguments, exactly as the
tests in test_fuzz_cli.py do, but a failure does not stop the hunt: it is filed under its class (the kind of
problem and, for an exception, its type and where it was raised) and the smallest example of each class is kept.
With ``--state``, classes found by an earlier hunt are replayed first and marked fixed or still failing, so the
report can be brought up to date as the code changes. ``--shrink S`` then spends up to ``S`` seconds per class
letting Hypothesis shrink its example.
"""

from __future__ import annotations

import argparse
import base64
import json
import subprocess
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz.cases import (
    CHECKS,
    expectation,
    record_argv,
    replay,
    run_argv,
    save_argv,
    template_of,
    workspace,
)
from tests.fuzz.harness import ROOT
from tests.fuzz.strategies import SceneFile, scene_files

COMMANDS = ("run",) * 8 + ("record", "gui", "save", "save")


def _case(command: str, scene: SceneFile, draw):
    """One example: returns (template argv, outcome, problems)."""
    with workspace(scene) as ws:
        expect = expectation(scene)
        if command == "run":
            argv = run_argv(draw, ws, expect)
        elif command == "record":
            argv = record_argv(draw, ws, expect)
        elif command == "save":
            argv = save_argv(draw, ws, expect)
        else:
            argv = ["gui", ws.scene_arg]
        outcome, found = CHECKS[command](ws, argv, expect)
        return template_of(outcome, ws.scene_arg, ws.out), outcome, found


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + f"…({len(text)} characters)"


def _shell_word(text: str) -> str:
    text = _short(text)
    return repr(text) if not text.isprintable() or " " in text or not text else text


def _size(scene: SceneFile, template: list[str]) -> int:
    return len(scene.data) + sum(len(a) for a in template) + len(scene.arg)


class Hunt:
    def __init__(self, state_path: Path | None, report_path: Path) -> None:
        self.state_path, self.report_path = state_path, report_path
        self.classes: dict[str, dict] = {}
        self.statuses: dict[str, int] = {}
        self.examples = 0
        self.started = time.strftime("%Y-%m-%d %H:%M:%S")
        if state_path is not None and state_path.exists():
            self.classes = json.loads(state_path.read_text())

    def record(self, command: str, scene: SceneFile, template, outcome, found) -> None:
        self.examples += 1
        key = f"{command} {outcome.status if not outcome.hung else 'hang'}"
        self.statuses[key] = self.statuses.get(key, 0) + 1
        for kind, detail in found:
            name = f"{command}: {kind}"
            entry = self.classes.setdefault(name, {"count": 0, "first_seen": time.strftime("%H:%M:%S")})
            entry["count"] += 1
            if entry.get("state", "open") != "open":  # back after its example passed: show the new example
                entry.pop("example", None)
                entry.pop("now", None)
            entry["state"] = "open"
            entry["last_seen"] = time.strftime("%H:%M:%S")
            size = _size(scene, template)
            if "example" not in entry or size < entry["example"]["size"]:
                entry["example"] = {
                    "size": size, "kind": scene.kind, "arg": scene.arg, "mangled": scene.mangled,
                    "data": base64.b64encode(scene.data).decode(), "template": template, "status": outcome.status,
                    "stderr": outcome.stderr[-1500:], "detail": detail[-2500:],
                }  # fmt: skip

    def replay_known(self) -> None:
        for name, entry in self.classes.items():
            example = entry["example"]
            scene = SceneFile(example["kind"], base64.b64decode(example["data"]), example["arg"], example["mangled"])
            outcome, found = replay(scene, example["template"])
            kinds = {f"{example['template'][0]}: {kind}" for kind, _ in found}
            entry["replayed"] = time.strftime("%H:%M:%S")
            entry["state"] = "still failing" if name in kinds else "fixed (its example passes now)"
            if name not in kinds:
                entry["now"] = {"status": outcome.status, "stderr": outcome.stderr[-600:], "problems": sorted(kinds)}
        self.save()

    def save(self) -> None:
        if self.state_path is not None:
            self.state_path.write_text(json.dumps(self.classes, indent=1))
        self.report_path.write_text(self.report())

    def report(self) -> str:
        commit = subprocess.run(["git", "log", "--oneline", "-1"], cwd=ROOT, capture_output=True, text=True)
        lines = [
            "# Fuzz findings (tests/fuzz)",
            "",
            f"Updated {time.strftime('%Y-%m-%d %H:%M:%S')} against `{commit.stdout.strip()}`; this hunt started "
            f"{self.started}, {self.examples} examples so far. Exit statuses seen: "
            + ", ".join(f"{k}: {v}" for k, v in sorted(self.statuses.items())),
            "",
            "Each class: the smallest example seen (or shrunk). Paths: `{SCENE}` is the scene argument (the file "
            "below, written as in/scene.toml), `{OUT}` the output folder, which is the working directory. "
            "Replay: `.venv/bin/python -m tests.fuzz.hunt --state STATE --examples 0`.",
            "",
        ]
        order = sorted(self.classes.items(), key=lambda item: (item[1].get("state") != "open", item[0]))
        for name, entry in order:
            example = entry["example"]
            data = base64.b64decode(example["data"])
            text = data.decode("utf-8", "replace")
            if len(text) > 2500:
                text = text[:2500] + f"\n... ({len(data)} bytes in all)"
            scene = {
                "file": f"scene file ({len(data)} bytes{', ' + example['mangled'] if example['mangled'] else ''})",
                "preset": f"preset name {_short(example['arg'])!r}",
                "device": f"device {example['arg']}",
            }.get(example["kind"], f"a {example['kind']} as the scene")
            lines += [
                f"## {name}",
                "",
                f"**{entry.get('state', 'open')}** · seen {entry['count']}× (first {entry['first_seen']}, last "
                f"{entry.get('last_seen', '-')}){' · replayed ' + entry['replayed'] if 'replayed' in entry else ''}",
                "",
                f"Command: `{' '.join(_shell_word(a) for a in example['template'])}` → exit {example['status']}",
                "",
                f"Scene: {scene}" + (":" if example["kind"] == "file" else ""),
                "",
            ]
            if example["kind"] == "file":
                lines += ["```toml", text.rstrip("\n"), "```", ""]
            lines += ["Problem:", "", "```", example["detail"].rstrip()[-1800:], "```", ""]
            if "now" in entry:
                lines += [f"Now: exit {entry['now']['status']}, problems {entry['now']['problems']}", ""]
        return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--report", type=Path, default=Path("fuzz_findings.md"))
    parser.add_argument("--state", type=Path, default=None)
    parser.add_argument("--shrink", type=float, default=0.0, help="seconds of shrinking per class (default: none)")
    args = parser.parse_args()
    hunt = Hunt(args.state, args.report)
    if hunt.classes:
        hunt.replay_known()
    last_save = [time.monotonic()]

    @settings(max_examples=max(args.examples, 1), database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(command=st.sampled_from(COMMANDS), scene=scene_files(), data=st.data())
    def explore(command, scene, data):
        template, outcome, found = _case(command, scene, data.draw)
        hunt.record(command, scene, template, outcome, found)
        if time.monotonic() - last_save[0] > 20:
            hunt.save()
            last_save[0] = time.monotonic()

    if args.examples > 0:
        explore()
    if args.shrink > 0:
        for name in [n for n, e in hunt.classes.items() if e.get("state") == "open"]:
            _shrink(hunt, name, args.shrink)
    hunt.save()


class _Found(Exception):
    """This class's problem: a failure for Hypothesis to shrink."""


class _Stop(BaseException):
    """Time is up: not an ``Exception``, so Hypothesis stops at once instead of shrinking it."""


def _shrink(hunt: Hunt, name: str, seconds: float) -> None:
    """Let Hypothesis look for, and shrink, a smaller example of class ``name`` for about ``seconds``."""
    command = name.split(":", 1)[0]
    deadline = time.monotonic() + seconds

    @settings(max_examples=10_000, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scene=scene_files(), data=st.data())
    def target(scene, data):
        if time.monotonic() > deadline:
            raise _Stop()
        template, outcome, found = _case(command, scene, data.draw)
        kinds = [(kind, detail) for kind, detail in found if f"{command}: {kind}" == name]
        if kinds:
            hunt.record(command, scene, template, outcome, kinds)
            raise _Found()

    try:
        target()
    except (_Found, _Stop):
        pass
    except Exception as error:  # noqa: BLE001 - a flaky class is still a class; say so and go on
        print(f"shrinking {name}: {type(error).__name__}: {error}")
    hunt.save()


if __name__ == "__main__":
    main()
