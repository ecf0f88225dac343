"""The numpy implementation of render/overlays.py ``trail_keep``, as it was before its loops were compiled
(render/thinning.py): the reference the compiled kernel is tested against, bit for bit (tests/render/test_thinning.py).
It lives in render/thinning_numpy.py, which the window also runs while the kernel compiles.
"""

from spinlab.render.thinning_numpy import trail_keep_reference

__all__ = ["trail_keep_reference"]
