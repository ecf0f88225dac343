"""A bench run's own file (benchmarks/runner.py's ``runs_dir``) and a run compared with a stored baseline
(benchmarks/baseline.py, ``bench --baseline`` and ``bench --compare``)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spinlab.benchmarks import runner
from spinlab.benchmarks.baseline import NOISE, compare, figures, format_comparison, read_report
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "benchmarks" / "results" / "bench.json"


class _Fake:
    """A benchmark that measures nothing: a gui-shaped result."""

    @staticmethod
    def run(quick, progress):
        return {"size": [1280, 720], "results": [{"workload": "compare", "median_ms": 10.0, "p90_ms": 12.0}]}

    @staticmethod
    def format_table(result):
        return "table"


def _report(median_ms: float, realtime_factor: float = 2.0) -> dict:
    return {
        "metadata": {"date": "2026-12-06", "commit": "abc1234", "load_before": [1.0] * 3, "load_after": [1.5] * 3},
        "benchmarks": {
            "gui": {"size": [1920, 1080], "results": [{"workload": "compare, all plots", "median_ms": median_ms}]},
            "render": {"results": [], "record": [{"scene": "t_handle", "realtime_factor": realtime_factor}]},
        },
    }


def test_each_run_writes_a_file_of_its_own_with_its_machine_and_load(tmp_path, monkeypatch):
    """``bench --only latency`` rewrote the tracked bench.json; a run now writes its own file, named by date, commit
    and host, and says the machine and the load average before and after it."""
    monkeypatch.setattr(runner, "BENCHMARKS", {"gui": _Fake})
    shared = tmp_path / "bench.json"
    shared.write_text('{"benchmarks": {}}')
    with open(os.devnull, "w") as sink:
        report = runner.run_all(True, None, out=sink, only=["gui"], runs_dir=tmp_path / "runs")
    (written,) = (tmp_path / "runs").iterdir()
    meta = report["metadata"]
    assert written.name == runner.run_file_name(meta) and json.loads(written.read_text()) == report
    assert meta["commit"] and meta["commit"].split("-")[0] in written.name  # a checkout: its commit
    assert len(meta["load_before"]) == len(meta["load_after"]) == 3 and meta["cpu_count"] and "cpu_model" in meta
    assert shared.read_text() == '{"benchmarks": {}}'


def test_a_figure_is_flagged_only_beyond_the_noise_and_a_rate_is_read_the_right_way_up():
    old = _report(10.0, realtime_factor=2.0)
    rows = {(r["what"], r["figure"]): r for r in compare(old, _report(10.0 * (1 + NOISE) * 1.01, 2.0 / 1.3))}
    assert rows[("compare, all plots @ 1920×1080", "median_ms")]["verdict"] == "slower"
    assert rows[("record t_handle", "realtime_factor")]["verdict"] == "slower"  # a lower real-time factor is worse
    calm = compare(old, _report(10.0 * (1 + NOISE) * 0.99, 2.0 * 1.3))
    assert [r["verdict"] for r in calm] == ["", "faster"]
    table = format_comparison(old, _report(20.0))
    assert "| 10 | 20 | 2.000 | slower |" in table and "load 1.00 → 1.50" in table and "abc1234" in table
    assert "1 slower, 0 faster" in table and f"{NOISE:.0%}" in table


def test_the_stored_results_give_figures_for_every_benchmark_they_hold():
    """The figures are read from each benchmark's result by its shape: the stored report's shapes give some for
    every benchmark the comparison knows (maps has none to compare)."""
    stored = read_report(STORED)
    assert stored is not None
    named = {name for name, _, _ in figures(stored)}
    assert named == set(stored["benchmarks"]) - {"maps"}
    assert {r["verdict"] for r in compare(stored, copy.deepcopy(stored))} == {""}


def _bench(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "main.py", "bench", *arguments], cwd=ROOT, capture_output=True, text=True,
                          timeout=HANG_S)  # fmt: skip


def test_bench_compare_prints_the_table_of_two_stored_reports(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_report(10.0)))
    new.write_text(json.dumps(_report(30.0)))
    result = _bench("--compare", str(old), str(new), "--noise", "50")
    assert result.returncode == 0, result.stderr
    assert "| 10 | 30 | 3.000 | slower |" in result.stdout and "beyond the noise (50%): 1 slower" in result.stdout


@pytest.mark.parametrize("content", [None, "[1, 2]", "{not json"])
def test_a_baseline_that_is_no_report_is_refused_before_any_work(tmp_path, content):
    path = tmp_path / "old.json"
    if content is not None:
        path.write_text(content)
    result = _bench("--only", "latency", "--baseline", str(path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "is not a bench report" in result.stderr
    assert "latency" not in result.stdout


def test_the_equal_error_ratio_of_each_pass_follows_that_passs_costs():
    """benchmarks/cost_spread.py: the accuracy rows' errors are kept, their costs are each pass's; a pass where
    MuJoCo RK4 costs twice as much relative to the splitting gives twice the ratio."""
    from spinlab.benchmarks.cost_spread import equal_error_spread, format_equal_error_spread

    hs = (1 / 60, 1 / 120, 1 / 240)
    rows = [{"source": "spinlab", "integrator": "axes8", "h": h, "orientation_error": 1e-2 * (60 * h) ** 8,
             "us_per_body_step": 9.0} for h in hs]  # fmt: skip
    rows += [{"source": "mujoco", "integrator": "RK4", "h": h, "orientation_error": 1e-2 * (60 * h) ** 4,
              "us_per_body_step": 9.0} for h in hs]  # fmt: skip
    passes = [{"load": [load] * 3, "t_handle": {"spinlab axes8": 1.0, "mujoco RK4": rk4}}
              for load, rk4 in ((0.5, 2.0), (3.0, 4.0), (1.0, 3.0))]  # fmt: skip
    table = {r["error"]: r for r in equal_error_spread(rows, {"passes": passes}, "t_handle")}
    ratios = table[1e-4]["ratios"]
    assert table[1e-4]["best"] == "axes8" and ratios[1] / ratios[0] == pytest.approx(2.0, rel=1e-12)
    assert ratios[2] / ratios[0] == pytest.approx(1.5, rel=1e-12)
    # Both clocks in one run: the CPU-time column from "cpu", the wall-time one from "wall" (here twice the ratios).
    doubled = [{"t_handle": p["t_handle"] | {"mujoco RK4": 2 * p["t_handle"]["mujoco RK4"]}} for p in passes]
    both = {"passes": [{"load": p["load"], "cpu": p, "wall": d} for p, d in zip(passes, doubled, strict=True)]}
    line = next(line for line in format_equal_error_spread(rows, both, "t_handle").splitlines() if "1e-04" in line)
    assert f"| {ratios[2]:.3g}× ({ratios[0]:.3g}–{ratios[1]:.3g}) | {2 * ratios[2]:.3g}× (" in line
