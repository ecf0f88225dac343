"""A scene in motion: the simulation and its scene graph, kicks and changes applied at their steps, and the pacing of
steps to frames."""
