"""sim/_numba_cache.is_cached: numba's cache of a module's kernels told cold, warm or stale from the files alone."""

import os
import subprocess
import sys
import textwrap

from spinlab.sim._numba_cache import is_cached


def _compile(module_dir, cache_dir) -> None:
    """Call ``kernel`` of ``module_dir/kernels.py`` in a fresh process, numba caching into ``cache_dir``."""
    script = f"import sys; sys.path.insert(0, {str(module_dir)!r}); import kernels; kernels.kernel(1.0)"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True)


def test_a_kernel_is_cached_once_numba_has_compiled_it_and_stale_after_its_source_changes(tmp_path, monkeypatch):
    source = tmp_path / "src" / "kernels.py"
    source.parent.mkdir()
    source.write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit(cache=True)
            def kernel(x):
                return 2.0 * x

            @njit(cache=True)
            def other(x):
                return 3.0 * x
            """
        )
    )
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    assert not is_cached(source, ["kernel"])  # cold
    _compile(source.parent, cache)
    assert is_cached(source, ["kernel"])
    assert is_cached(source, [])
    assert not is_cached(source, ["kernel", "other"])  # never called, so never compiled
    later = source.stat().st_mtime + 10.0
    os.utime(source, (later, later))  # an edit after the cache was written: numba would compile again
    assert not is_cached(source, ["kernel"])
    assert not is_cached(tmp_path / "missing.py", ["kernel"])
