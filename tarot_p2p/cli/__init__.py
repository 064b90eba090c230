"""The ``tarot-p2p`` command."""
