"""The tests bound work, never wall-clock time (tests/hang.py): a busy machine runs them slower, and a bound on
seconds fails code that works. Every wait in a test is the one generous watchdog, ``HANG_S``, whose firing says it
is a hang; this reads the tests' source for any other."""

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# A number of seconds written where a test waits or asserts on the clock.
WALL_CLOCK = re.compile(
    r"timeout\s*=\s*[0-9](?![0-9.]*\s*\*\s*HANG_S)"  # subprocess.run / communicate / wait / join with seconds
    r"|\.(?:wait|join)\(\s*[0-9]"  # an Event's or a thread's wait
    r"|(?:monotonic|perf_counter|time)\(\)\s*[-+]\s*(?:[0-9]|started|start\b)"  # a deadline or an elapsed time
    r"|setitimer\([^)]*,\s*(?!0\.0\))[0-9]"  # an alarm (0.0 cancels one)
    r"|^\s*HANG\w*\s*=\s*[0-9]",  # a watchdog of its own
    re.MULTILINE,
)


def test_no_test_bounds_wall_clock_time():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("hang.py", Path(__file__).name) or "data" in path.relative_to(TESTS).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for match in WALL_CLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(TESTS)}:{line}: {text.splitlines()[line - 1].strip()}")
    assert not found, "bounds on seconds (use tests/hang.py's HANG_S, a watchdog):\n" + "\n".join(found)
