"""benchmarks/runner.py: what ``bench --only NAME --json OUT.json`` reads of an earlier report before it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spinlab.benchmarks.runner import MAX_REPORT_BYTES, _read_results
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[1]


def test_an_earlier_report_keeps_its_results(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"metadata": {}, "benchmarks": {"latency": {"x": 1}}}))
    assert _read_results(path) == {"latency": {"x": 1}}


def test_what_is_no_report_is_read_as_none(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)  # json.loads: RecursionError, which was an "internal error"
    large = tmp_path / "large.json"
    large.write_bytes(b" " * (MAX_REPORT_BYTES + 1) + b"{}")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{")
    for path in (deep, large, binary, tmp_path / "missing.json", tmp_path, Path("/dev/zero"), Path("/dev/null")):
        assert _read_results(path) == {}, path


def test_a_fifo_or_a_device_is_never_read(tmp_path):
    # /dev/zero was read until memory ran out; a FIFO with no writer was waited on for ever.
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    script = (
        "from pathlib import Path; from spinlab.benchmarks.runner import _read_results as r; "
        f"print(r(Path({str(fifo)!r})), r(Path('/dev/zero')))"  # the FIFO first: the old reader waited there
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    assert result.stdout == "{} {}\n", result.stderr


def test_a_bench_of_one_part_keeps_what_another_wrote_while_it_ran(tmp_path, monkeypatch):
    """Two ``bench --only`` runs of different parts at once: the one that ends last keeps the other's result, which
    the file did not hold yet when it began (it used to keep only what it read at its start)."""
    from spinlab.benchmarks import runner

    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"metadata": {}, "benchmarks": {"old": {"x": 0}}}))

    class Slow:
        @staticmethod
        def run(quick, progress):
            # Meanwhile another bench wrote its part.
            runner.write_json_atomically({"metadata": {}, "benchmarks": {"old": {"x": 0}, "other": {"x": 2}}}, path)
            return {"x": 1}

        @staticmethod
        def format_table(result):
            return "table"

    monkeypatch.setattr(runner, "BENCHMARKS", {"mine": Slow})
    with open(os.devnull, "w") as sink:
        runner.run_all(True, path, out=sink, only=["mine"])
    results = _read_results(path)
    assert results["other"] == {"x": 2} and results["old"] == {"x": 0} and results["mine"]["x"] == 1


def test_bench_gui_takes_the_window_sizes_and_refuses_them_for_another_part(tmp_path, monkeypatch, capsys):
    from spinlab.benchmarks import gui, runner
    from spinlab.commands.cli import main

    asked = []

    def measured(quick, progress=None, sizes=gui.SIZES):
        asked.append(sizes)
        return {"name": "gui", "skipped": "measured elsewhere", "results": []}

    fake = type("Gui", (), {"run": staticmethod(measured), "format_table": staticmethod(str)})
    monkeypatch.setattr(runner, "BENCHMARKS", {"gui": fake})
    path = tmp_path / "bench.json"
    assert main(["bench", "--only", "gui", "--json", str(path)]) == 0
    assert main(["bench", "--only", "gui", "--size", "1921x1080", "--size", "800x600", "--json", str(path)]) == 0
    assert asked == [gui.SIZES, [(1920, 1080), (800, 600)]]  # even sizes, as a video's
    capsys.readouterr()
    assert main(["bench", "--only", "render", "--size", "800x600", "--json", str(path)]) == 2
    assert main(["bench", "--only", "gui", "--size", "800", "--json", str(path)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all("--size" in line for line in errors), errors
