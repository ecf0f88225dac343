"""The run model the window, ``record`` and the stills share: a run's setup and session, what each step is measured
by, its samples, flip counts, failures and colours."""
