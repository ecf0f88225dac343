"""What the no-compile tests share: a script run in a fresh process (this one has kernels loaded already) with every
compile numba makes counted, from numba's import on (it compiles, or loads from its cache, a kernel's signature
there), and its one JSON line read back."""

import json
import subprocess
import sys
from pathlib import Path

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]

COUNTED = r"""
import json, sys
import numba.core.dispatcher as dispatcher

compiles = []
real = dispatcher.Dispatcher.compile

def counted(self, signature):
    compiles.append(getattr(self, "__qualname__", repr(self)) + str(signature))
    return real(self, signature)

dispatcher.Dispatcher.compile = counted
"""
"""The preamble: ``compiles`` lists each compile (the kernel's name and signature) from then on."""


def run_counted(script: str, *arguments: str) -> dict:
    """``script`` after :data:`COUNTED` in a fresh Python at the checkout's root, with ``arguments``; the JSON it
    prints last."""
    result = subprocess.run(
        [sys.executable, "-c", COUNTED + script, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=2 * HANG_S,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
