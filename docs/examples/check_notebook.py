"""Run an example notebook top to bottom in a real Jupyter kernel, headless, and check what it drew.

    python docs/examples/check_notebook.py [NOTEBOOK] [--quick] [--installed] [--out EXECUTED.ipynb]

``--quick`` runs it with the small durations and video of :data:`QUICK` (the suite, tests/test_notebook.py), put in
a cell after the one tagged ``parameters``, as papermill does; ``--installed`` runs the installed spinlab (CI's
fresh ``pip install '.[notebook]'``, .ci/notebook), else the kernel imports this checkout's. The checks: no cell
raised; every plot cell drew a PNG; the video cell's MP4 decodes to frames that are not blank; the flip line says the
run flipped as the exact solution did. Exit status 0 when all hold, else 1 with the first failure.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "spinlab_tour.ipynb"
QUICK = """
DURATION = 6.0
WORK_DURATION = 1.0
STEPS = [0.1, 0.05]
ENGINE_DURATION = 2.0
VIDEO_SIZE = (160, 96)
"""
"""The parameters of a quick run: short runs and a small video (the suite runs it in a few seconds)."""
FIGURES = 4
"""The figures the notebook draws: the flip's ω, the comparison, the work–precision plot, the engines."""


def execute(path: Path, *, quick: bool, installed: bool):
    """The notebook at ``path`` executed in a fresh ``python3`` kernel (ipykernel) in a temporary folder."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    if quick:
        index = next(i for i, cell in enumerate(notebook.cells) if "parameters" in cell.metadata.get("tags", []))
        injected = nbformat.v4.new_code_cell(QUICK.strip(), metadata={"tags": ["injected-parameters"]})
        notebook.cells.insert(index + 1, injected)
    if not installed:  # the kernel imports this checkout's spinlab
        root = str(HERE.parents[1])
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    with tempfile.TemporaryDirectory(prefix="spinlab-notebook-") as folder:
        client = NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": folder}})
        client.execute()
    return notebook


def check(notebook) -> list[str]:
    """What is wrong with the executed ``notebook``'s outputs (nothing: an empty list)."""
    problems = []
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])]
    errors = [output for output in outputs if output.output_type == "error"]
    if errors:
        problems.append(f"a cell raised {errors[0].ename}: {errors[0].evalue}")
    pngs = [output for output in outputs if "image/png" in output.get("data", {})]
    if len(pngs) < FIGURES:
        problems.append(f"{len(pngs)} figures drawn, expected {FIGURES}")
    for output in pngs:
        if len(base64.b64decode(output.data["image/png"])) < 2000:
            problems.append("a figure is (nearly) empty")
    videos = [output.data["text/html"] for output in outputs if "data:video/mp4" in output.get("data", {}).get(
        "text/html", "")]  # fmt: skip
    if len(videos) != 1:
        problems.append(f"{len(videos)} videos shown, expected 1")
    else:
        problems += _video_problems(videos[0])
    text = "".join(output.get("text", "") for output in outputs if output.output_type == "stream")
    flips = re.search(r"flips with the gyroscopic term: (\d+) \(exact (\d+)\)", text)
    if flips is None or flips[1] != flips[2] or int(flips[1]) < 1:
        problems.append(f"the flip line is not a flip as the exact solution's: {flips and flips[0]!r}")
    if not re.search(r"flips without it, as many games step: 0\b", text):
        problems.append("the run without the gyroscopic term flipped, or its line is missing")
    return problems


def _video_problems(html: str) -> list[str]:
    """What is wrong with the MP4 embedded in ``html``: it must decode (PyAV, spinlab's own dependency) to frames
    that are not blank."""
    import av

    data = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", html)[1])  # type: ignore[index]
    with av.open(io.BytesIO(data)) as container:
        frames = [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]
    if not frames:
        return ["the video holds no frame"]
    if frames[-1].std() < 1.0:
        return ["the video's last frame is blank"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", type=Path, default=NOTEBOOK)
    parser.add_argument("--quick", action="store_true", help="small durations and video (the suite's run)")
    parser.add_argument("--installed", action="store_true", help="the installed spinlab, not this checkout's")
    parser.add_argument("--out", type=Path, help="write the executed notebook here")
    args = parser.parse_args(argv)
    notebook = execute(args.notebook, quick=args.quick, installed=args.installed)
    if args.out is not None:
        import nbformat

        nbformat.write(notebook, args.out)
    problems = check(notebook)
    for problem in problems:
        print(f"{args.notebook.name}: {problem}", file=sys.stderr)
    if not problems:
        print(f"{args.notebook.name}: ran top to bottom, its figures, video and flips checked")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
