"""``python -m services.cli``: the ``baloot`` command."""

import sys

from services.cli import main

sys.exit(main())
