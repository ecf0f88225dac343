"""The one wall-clock bound a test may have: a watchdog that turns a hang into a failure that says so.

A test bounds its work by counts (steps, frames, examples, bodies), never by time: a busy machine (the suite beside
other jobs, load 20 on two cores) runs everything slower, and a bound on seconds then fails code that works.
:data:`HANG_S` is far past any test's own time on such a machine; only something that waits for ever reaches it.
"""

__all__ = ["HANG_S", "hang_message"]

HANG_S = 600.0


def hang_message(what: str, seconds: float = HANG_S) -> str:
    """The failure of a watchdog that fired after ``seconds``: ``what`` did not finish, and why that is a hang, not
    slowness."""
    return f"{what} gave no answer within {seconds:g} s: a hang (a watchdog, far past any run on a busy machine)"
