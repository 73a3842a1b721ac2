"""``python -m mcptrio.cli`` is the ``mcptrio`` command."""

import sys

from . import main

sys.exit(main())
