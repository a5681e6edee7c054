"""``python -m ordframe``: the ``ordframe`` command."""

import sys

from ordframe._cli.main import main

sys.exit(main())
