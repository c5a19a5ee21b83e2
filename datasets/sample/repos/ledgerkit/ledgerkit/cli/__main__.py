"""Allows ``python3 -m ledgerkit.cli``."""

import sys

from ledgerkit.cli.main import main

sys.exit(main())
