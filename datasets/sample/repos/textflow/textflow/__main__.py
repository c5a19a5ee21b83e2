"""Allow ``python3 -m textflow``."""

import sys

from textflow.cli import main

sys.exit(main())
