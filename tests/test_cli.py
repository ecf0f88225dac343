"""The command line as a user meets it: help that helps, one-line errors with exit status 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=cwd)


def test_help_lists_the_commands():
    result = _run("--help")
    assert result.returncode == 0
    assert "bench" in result.stdout


def test_unknown_command_is_one_line_and_exit_2():
    result = _run("frobnicate")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_json_path_is_rejected_before_any_work(tmp_path):
    missing = tmp_path / "no" / "such" / "dir" / "out.json"
    result = _run("bench", "--quick", "--json", str(missing))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "does not exist" in result.stderr
    assert not missing.parent.exists()


def test_benchmark_names_match_the_suite():
    from spinlab.benchmarks.runner import BENCHMARKS
    from spinlab.commands.bench import BENCHMARK_NAMES

    assert set(BENCHMARK_NAMES) == set(BENCHMARKS)


def test_json_path_that_is_a_directory_is_rejected(tmp_path):
    result = _run("bench", "--json", str(tmp_path))
    assert result.returncode == 2 and "is a directory" in result.stderr


def test_bench_quick_prints_the_table_and_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    # An earlier report: --only replaces its own benchmark's result and keeps the others'.
    out.write_text(json.dumps({"benchmarks": {"render": {"kept": True}, "contiguous_list": {"stale": True}}}))
    result = _run("bench", "--quick", "--only", "contiguous_list", "--json", str(out))
    assert result.returncode == 0, result.stderr
    assert "contiguous" in result.stdout.lower()
    data = json.loads(out.read_text())
    assert data["metadata"]["quick"] is True
    assert set(data["benchmarks"]) == {"contiguous_list", "render"}
    assert data["benchmarks"]["render"] == {"kept": True} and "stale" not in data["benchmarks"]["contiguous_list"]
    assert data["benchmarks"]["contiguous_list"]["date"] == data["metadata"]["date"]
    operations = {row["operation"] for row in data["benchmarks"]["contiguous_list"]["results"]}
    assert {"build", "ordered_sum", "order_free_sum", "random_erase"} <= operations
    assert not list(tmp_path.glob("*.tmp*")), "the temporary file was left behind"


@pytest.mark.parametrize("value", ["-inf", "-Infinity", "-nan", "-1e5", "-1.5e-3", "-1", "-.5"])
@pytest.mark.parametrize("option", [["run", "t_handle", "--dt"], ["run", "t_handle", "--duration"],
                                    ["record", "t_handle", "--out", "x.mp4", "--fps"]])  # fmt: skip
def test_a_negative_number_is_a_value_refused_with_its_reason(capsys, option, value):
    # argparse takes "-inf" or "-1e5" for an option: "--dt -inf" said "expected one argument".
    from spinlab.commands.cli import build_parser

    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args([*option, value])
    assert raised.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"'{value}' must be" in error, error
