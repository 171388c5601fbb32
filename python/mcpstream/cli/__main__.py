"""``python -m mcpstream.cli``."""

import sys

from . import main

sys.exit(main())
