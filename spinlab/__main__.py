"""``python -m spinlab``: the same command line as the installed ``spinlab`` command."""

import sys

from spinlab.launch import main

if __name__ == "__main__":
    sys.exit(main())
