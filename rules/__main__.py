"""`python -m rules score FILE|-` — see `rules.cli`."""

import sys

from .cli import main

sys.exit(main())
