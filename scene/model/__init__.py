"""The run model the window, ``record``, the stills and ``run`` share: a run's setup and session, its step record,
replay, timeline and branches, what each step is measured by, its samples, flip counts, failures and colours, and
the headless runner."""
