"""Process plumbing: stop signals, the paused garbage collector, and the compiled kernels loaded before timed work."""
