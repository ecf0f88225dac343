"""spinlab's command line, run from a source checkout: ``python main.py [COMMAND] ...``.

The same as the installed ``spinlab`` command and ``python -m spinlab``; the parser and what every command's failure
becomes are in ``commands/cli.py``.
"""

import sys

from spinlab.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
