"""``python -m mcptrio`` is the ``mcptrio`` command."""

import sys

from mcptrio.cli import main

sys.exit(main())
