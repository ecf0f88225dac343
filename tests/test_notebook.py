"""The example notebook (docs/examples/) runs top to bottom in a real Jupyter kernel, headless, and draws what it
should: its figures, a video that decodes, the flip. Quick: small durations and video (check_notebook.py's QUICK)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "docs" / "examples" / "check_notebook.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_notebook", CHECK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_notebook_runs_in_a_kernel_and_draws_its_figures_video_and_flip():
    for needed in ("nbclient", "nbformat", "ipykernel", "matplotlib", "pandas"):
        pytest.importorskip(needed)
    result = subprocess.run([sys.executable, str(CHECK), "--quick"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ran top to bottom" in result.stdout


def test_the_check_finds_a_cell_that_raised_a_missing_figure_and_a_blank_video():
    nbformat = pytest.importorskip("nbformat")
    check = _checker().check
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 / 0")
    cell.outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero")]
    notebook.cells = [cell]
    problems = check(notebook)
    assert problems[0] == "a cell raised ZeroDivisionError: division by zero"
    assert "0 figures drawn, expected 4" in problems and "0 videos shown, expected 1" in problems
    assert any(problem.startswith("the flip line") for problem in problems)


def test_the_notebook_is_kept_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(_checker().NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)
