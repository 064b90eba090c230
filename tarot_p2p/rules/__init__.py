"""Pure, deterministic French Tarot rules engine: no I/O, no crypto, no randomness."""
