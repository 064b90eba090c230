"""Mental poker over secp256k1: threshold ElGamal deck, verifiable shuffle, proven reveals.

Layers, primitives first (as pyca/cryptography keeps hazmat apart from recipes):

* primitives — ``errors`` (what a peer did wrong), ``group`` (points, scalars, parsing),
  ``multiexp`` (fast sums of products), ``randomness`` (secrets / seeded stream),
  ``fiat_shamir`` (contexts and challenges), ``sigma`` (the ``(c, z)`` proof encoding);
* recipes, each stating what it proves — ``elgamal`` (card points, masking), ``keys``
  (key shares with proof of knowledge, joint key), ``deck`` (the public initial deck),
  ``shuffle`` (proven shuffle), ``shares`` (proven decryption shares, card recovery),
  ``escrow`` (a seat's key share, rebuilt by all the other seats together);
* ``vectors``, ``shuffle_vectors``, ``escrow_vectors`` — the test vectors of
  ``protocol/vectors/``.

No I/O and no game rules here; the normative description is ``protocol/crypto.md`` and
``protocol/shuffle.md``, the security model ``docs/security.md``.
"""
