"""Mental poker over secp256k1: threshold ElGamal deck, verifiable shuffle, proven reveals."""
