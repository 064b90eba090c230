"""``python3 -m tarot_p2p`` is the ``tarot-p2p`` command (works before any PATH is set up)."""

import sys

from tarot_p2p.cli.main import main

sys.exit(main())
