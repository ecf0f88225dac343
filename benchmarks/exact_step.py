"""Cost of the ``exact`` stepper (sim/integrators/exact.py) per body per step, at N = 1, 8, 100 and 1000 bodies.

The bodies: T-handles (principal moments 1.3, 1.4, 2.5 kg m², the compare scene's) at random orientations, body
rates (0.05, 5, 0.05) rad/s perturbed by 0.1 rad/s (normal per component: every one flips), torque-free, the
gyroscopic term on, h = 1/60 s. ``continued``: µs per body-step of a run of steps,
each starting where the last ended (the stepper goes on along each body's stored closed form); ``solved``: of a
step from a state no step returned (each body's motion solved afresh). Best of ``repeats`` timings (timeit) of
``steps`` chained steps. ``python -m spinlab.benchmarks.exact_step [--quick]`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import timeit

import numpy as np

from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState
from spinlab.sim.quaternion import quat_normalize

__all__ = ["measure", "main"]

H = 1.0 / 60.0
SIZES = (1, 8, 100, 1000)


def _bodies(n_bodies: int, seed: int = 7) -> tuple[BodyState, BodyParams]:
    rng = np.random.default_rng(seed)
    inertia = np.broadcast_to(np.diag([1.3, 1.4, 2.5]), (n_bodies, 3, 3))
    q = quat_normalize(rng.normal(size=(n_bodies, 4)))
    omega_body = np.array([0.05, 5.0, 0.05]) + 0.1 * rng.normal(size=(n_bodies, 3))
    return BodyState.from_omega_body(q, omega_body, inertia), BodyParams.from_inertia(inertia)


def measure(n_bodies: int, *, steps: int, repeats: int) -> dict[str, float]:
    """µs per body-step, ``continued`` and ``solved``, for ``n_bodies`` bodies."""
    step = INTEGRATORS["exact"]
    start, params = _bodies(n_bodies)
    held = [step(start, params, H)[0]]

    def continued() -> None:
        state = held[0]
        for _ in range(steps):
            state, _ = step(state, params, H)
        held[0] = state

    def solved() -> None:
        for _ in range(steps):
            step(start, params, H)

    per_body_step = 1e6 / (steps * n_bodies)
    return {
        "continued": min(timeit.repeat(continued, number=1, repeat=repeats)) * per_body_step,
        "solved": min(timeit.repeat(solved, number=1, repeat=repeats)) * per_body_step,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    arguments = parser.parse_args(argv)
    results = {}
    for n_bodies in SIZES:
        steps = max(2, (20 if arguments.quick else 200) // n_bodies)
        results[str(n_bodies)] = measure(n_bodies, steps=steps, repeats=3 if arguments.quick else 5)
    print(json.dumps({"us_per_body_step": results, "h": H}, indent=1))


if __name__ == "__main__":
    main()
