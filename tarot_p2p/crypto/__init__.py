"""Mental poker over secp256k1: threshold ElGamal deck, verifiable shuffle, proven reveals.

Layers, primitives first (as pyca/cryptography keeps hazmat apart from recipes):

* primitives — ``errors`` (what a peer did wrong), ``group`` (points, scalars, parsing),
  ``multiexp`` (fast sums of products), ``randomness`` (secrets / seeded stream),
  ``fiat_shamir`` (contexts and challenges), ``sigma`` (the ``(c, z)`` proof encoding);
* recipes, each stating what it proves — ``elgamal`` (card points, masking), ``keys``
  (key shares with proof of knowledge, joint key), ``deck`` (the public initial deck),
  ``shuffle`` (proven shuffle), ``shares`` (proven decryption shares, card recovery);
* ``vectors`` — the test vectors of ``protocol/vectors/crypto_*.json``.

No I/O and no game rules here; the normative description is ``protocol/crypto.md`` and
``protocol/shuffle.md``, the security model ``docs/security.md``.
"""
