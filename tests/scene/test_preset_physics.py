"""The presets do what they promise, under implicit midpoint at h = 1/60 over 60 s."""

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.quaternion import quat_conj, quat_rotate

H = 1.0 / 60.0
DURATION_S = 60.0
FLIP_PERIOD_RTOL = 1e-3


def _body_omega_history(name: str, *, gyroscopic: bool = True) -> tuple[np.ndarray, np.ndarray, Simulation]:
    simulation = Simulation(load_scene(name), integrator="implicit_midpoint", h=H, gyroscopic=gyroscopic)
    times, omega_body = [], []
    for _ in range(round(DURATION_S / H)):
        simulation.step()
        now = simulation.snapshot()
        times.append(now.t)
        omega_body.append(quat_rotate(quat_conj(now.q[0]), now.omega_world[0]))
    return np.array(times), np.array(omega_body), simulation


@pytest.mark.parametrize(("name", "axis"), [("stable_major", 2), ("stable_minor", 0)])
def test_stable_spins_do_not_flip(name, axis):
    _, omega_body, _ = _body_omega_history(name)
    # The spin component keeps its sign and its size: the wobble stays small.
    assert np.all(omega_body[:, axis] > 4.9)


def _sign_changes(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Times where ``values`` changes sign, by linear interpolation between samples."""
    i = np.flatnonzero(np.sign(values[1:]) != np.sign(values[:-1]))
    return times[i] + (times[i + 1] - times[i]) * values[i] / (values[i] - values[i + 1])


def test_t_handle_flips_with_the_exact_period():
    times, omega_body, simulation = _body_omega_history("t_handle")
    body = simulation.scene.bodies[0]
    exact = TorqueFreeSolution.from_state(body.inertia_body, body.orientation, body.omega_parent)
    crossings = _sign_changes(times, omega_body[:, 1])
    assert len(crossings) >= 5, "the T-handle did not keep flipping"
    # Ω_y changes sign twice per period 4K/λ: every other crossing is one period apart.
    periods = crossings[2:] - crossings[:-2]
    np.testing.assert_allclose(periods, exact.flip_period, rtol=FLIP_PERIOD_RTOL)


def test_without_the_gyroscopic_term_the_t_handle_never_flips():
    _, omega_body, _ = _body_omega_history("t_handle", gyroscopic=False)
    assert np.all(omega_body[:, 1] > 4.9)
