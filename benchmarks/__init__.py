"""The benchmark suite: one module per benchmark with ``run(quick)`` and ``format_table(result)``, run by
``benchmarks.runner.run_all`` (``python main.py bench``). Results are JSON, not timed tests."""
