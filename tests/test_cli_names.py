"""Output names the command line takes or refuses, before any work: a name as long as the file system allows is
written (its temporary file fits too), one longer or read-only is one line naming the argument and the value, exit
2, and nothing is run or written."""

import os

import pytest

from spinlab.commands.cli import main


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse's refusals
        return int(stop.code)


def _one_line_refusal(capsys, argv: list[str], *words: str) -> str:
    assert _status(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def _longest(folder) -> int:
    return os.pathconf(folder, "PC_NAME_MAX")


@pytest.mark.parametrize("command", ["run", "record"])
def test_a_name_longer_than_the_file_system_takes_is_refused_before_the_run(tmp_path, capsys, command):
    name = "n" * (_longest(tmp_path) - 3) + ".mp4"
    option = "--out" if command == "record" else "--trace"
    argv = [command, "t_handle", "--duration", "0.05", option, str(tmp_path / name)]
    line = _one_line_refusal(capsys, argv, option, "File name too long", str(tmp_path)[:40])
    assert "wrote" not in line and list(tmp_path.iterdir()) == []


def test_the_traces_of_every_integrator_are_named_before_the_runs(tmp_path, capsys):
    # `run --integrator all --trace T.csv` writes T.<integrator>.csv: a name that fits can make one that does not.
    given = tmp_path / ("n" * (_longest(tmp_path) - 8) + ".csv")
    _one_line_refusal(
        capsys, ["run", "t_handle", "--integrator", "all", "--duration", "0.05", "--trace", str(given)],
        "--trace", "File name too long",
    )  # fmt: skip
    assert list(tmp_path.iterdir()) == [], "refused before any run"


@pytest.mark.parametrize("command", ["run", "record"])
def test_a_read_only_output_is_refused_and_kept(tmp_path, capsys, command):
    # A trace a person protected (chmod 444) was replaced without a word.
    target = tmp_path / ("kept.csv" if command == "run" else "kept.mp4")
    target.write_bytes(b"protected")
    target.chmod(0o444)
    option = "--out" if command == "record" else "--trace"
    _one_line_refusal(capsys, [command, "t_handle", "--duration", "0.05", option, str(target)], option, "read-only")
    assert target.read_bytes() == b"protected" and [p.name for p in tmp_path.iterdir()] == [target.name]
