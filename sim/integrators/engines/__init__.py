"""The game and robotics engines' own rotation steps (Bullet, MuJoCo, PhysX, Jolt, Godot, Catto 2015), written
from their sources (docs/engines.md), one engine a module, each declaring its modes as ``VARIANTS`` (records of
:class:`sim.integrators.record.Integrator`, float32 twins included); :mod:`sim.integrators.engines.common` holds
what they share. Compared with one another and the closed form, apart from the maths' methods."""
