"""``python -m ordframe``: the ``ordframe`` command."""

import sys

from .cli import main

sys.exit(main())
