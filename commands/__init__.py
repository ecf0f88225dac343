"""The commands of ``main.py``, one module each: ``run``, ``record``, ``gui``, ``bench`` (and ``stills``, the docs'
pictures). A command wires the libraries below it (sim/, scene/, render/, ui/, benchmarks/) to the parsed arguments
and prints what the user reads; the libraries never print and never import a command.
"""
