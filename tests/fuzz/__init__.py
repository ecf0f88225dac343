"""Property-based fuzzing of the command line: generated scene files and arguments, each
run through ``run``, ``record`` or ``gui``, and every result checked against the contract: exit status 0, 1 or 2;
no traceback, warning or internal error; one line on stderr for a refusal; every number written finite; a trace
any CSV reader reads back; nothing left in the output folder but what was asked for.

Default budget: about a minute for the whole package (CI). To run longer:

    SPINLAB_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest tests/fuzz -q      # examples of `run`; the others scale
    .venv/bin/python -m tests.fuzz.hunt --examples 2000 --report findings.md  # collect every failure class

With ``CI`` set the examples are derandomised (the same every run); otherwise each run draws new ones and
Hypothesis's database (.hypothesis/) replays past failures first.
"""
