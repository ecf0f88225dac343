"""Which integrators a window run must recompute once their kernels arrive (sim/compiled.off_kernel_bits): only
those whose stand-in, while the kernel is not ready, steps off the kernel's bits."""

from spinlab.sim import compiled
from spinlab.sim.integrators import FAMILIES, METHODS


def test_a_run_on_twins_and_kernel_bit_paths_needs_no_recomputing():
    every = [*METHODS, *FAMILIES["engines"], *FAMILIES["engines_f32"], None]
    with compiled.gated(stand_in="twin"):  # the window's start: nothing ready, twins standing in
        off = compiled.off_kernel_bits(every)
        assert off == {name for name in METHODS if name not in compiled.TWINS | compiled.KERNEL_BITS_ON_NUMPY}
        assert not off & compiled.TWINS and not off & compiled.KERNEL_BITS_ON_NUMPY
        assert compiled.off_kernel_bits(["implicit_midpoint", "euler", "exact", "im6", "physx"]) == frozenset()
    with compiled.gated(stand_in="numpy"):  # on the numpy references, the twinned kernels' numbers part
        assert compiled.off_kernel_bits(["implicit_midpoint", "euler"]) == {"implicit_midpoint"}
    with compiled.gated(ready=["im6"], stand_in="numpy"):  # a ready kernel steps itself
        assert compiled.off_kernel_bits(["im6"]) == frozenset()
