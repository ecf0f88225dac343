"""spinlab's command line, run from a source checkout: ``python main.py [COMMAND] ...``.

The same as the installed ``spinlab`` command and ``python -m spinlab``: all three start in ``spinlab/launch.py``
(the stop signals' handlers and UTF-8 output, from the first import on); the parser and what every command's
failure becomes are in ``commands/cli.py``.
"""

import sys

from spinlab.launch import main

if __name__ == "__main__":
    sys.exit(main())
