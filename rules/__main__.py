"""`python -m rules score FILE|-` — see `rules.cli`."""

import os
import sys

from .cli import main

try:
    sys.exit(main())
except BrokenPipeError:  # output piped into `head` and closed early: not an error worth a traceback
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)
