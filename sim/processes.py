"""Whether a process is still running: what tells a file or folder a killed process left behind from one in use.

Names that carry their writer's process id (scene/files/atomic_file.py's temporary files, sim/_numba_cache.py's
temporary cache folders) are removed by the next process that finds their writer gone: a SIGKILL or a power cut
leaves nothing of that process to clean up after itself.
"""

from __future__ import annotations

import os

__all__ = ["process_alive"]


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists. This process's own id counts as gone: a caller keeps what it holds itself,
    so something with its id that it does not hold was left by an earlier process of that id. Another user's
    process (``EPERM``) is alive; so, to be safe, is an id out of the system's range."""
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
