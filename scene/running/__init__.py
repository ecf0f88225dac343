"""A scene in motion: the simulation and its scene graph, kicks, headless runs, a run's history and replay, and the
pacing of steps to frames."""
