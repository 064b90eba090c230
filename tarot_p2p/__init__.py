"""tarot_p2p: serverless French Tarot with a mental-poker deal and agreed, signed scores."""

__version__ = "0.1.0"
