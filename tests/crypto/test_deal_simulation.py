"""A whole 4-peer deal in one process: keys, four proven shuffles, cards opened to owners.

Each peer's view is modelled by what it can compute: the public transcript (key shares,
shuffled decks, published shares with proofs) plus its own secret. The deal pattern is the
rules engine's (FFT packets of three, chien between packets); crypto itself never imports
rules, the test joins the two.
"""

from __future__ import annotations

from tarot_p2p.crypto.deck import initial_deck
from tarot_p2p.crypto.elgamal import Ciphertext
from tarot_p2p.crypto.errors import CryptoError
from tarot_p2p.crypto.fiat_shamir import ProofContext
from tarot_p2p.crypto.group import Point
from tarot_p2p.crypto.keys import joint_key, key_context, make_key_share
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.crypto.shares import decryption_share, prove_shares, recover_card, verify_shares
from tarot_p2p.crypto.shuffle import shuffle_and_prove, verify_shuffle
from tarot_p2p.rules.cards import cards_of
from tarot_p2p.rules.config import TableConfig
from tarot_p2p.rules.deal import CHIEN, deal_cards, deal_pattern

SEATS = 4
TABLE = b"deal simulation"
HAND = 1
DEALER = 3
CONFIG = TableConfig(players=SEATS)


def _try_recover(ct: Ciphertext, shares: list[Point]) -> int | None:
    try:
        return recover_card(ct, shares)
    except CryptoError:
        return None


def test_four_peer_deal() -> None:
    rngs = [DeterministicRandom(f"peer {s}".encode()) for s in range(SEATS)]

    # Keys: every peer verifies every proof and computes the same joint key.
    pairs = [make_key_share(key_context(TABLE, HAND, s), rngs[s]) for s in range(SEATS)]
    secrets = [x for x, _ in pairs]
    key_shares = [share for _, share in pairs]
    y = joint_key(TABLE, HAND, key_shares)

    # Shuffles: seat s shuffles seat s-1's output; the three others verify it.
    deck = initial_deck(y)
    for s in range(SEATS):
        ctx = ProofContext(TABLE, HAND, "shuffle", s)
        out, proof = shuffle_and_prove(y, deck, ctx, rngs[s])
        verify_shuffle(y, deck, out, proof, ctx)
        deck = out

    pattern = deal_pattern(CONFIG, DEALER)
    chien_slots = [p for p, dest in enumerate(pattern) if dest == CHIEN]

    # Deal: each seat publishes, in one proven batch, its shares of the others' slots.
    published: dict[tuple[int, int], Point] = {}
    for s in range(SEATS):
        slots = [p for p, dest in enumerate(pattern) if dest not in (s, CHIEN)]
        ctx = ProofContext(TABLE, HAND, "shares", s)
        cts = [deck[p] for p in slots]
        shares, proof = prove_shares(secrets[s], cts, ctx, rngs[s])
        verify_shares(key_shares[s].y, cts, shares, proof, ctx)
        published.update({(s, p): d for p, d in zip(slots, shares, strict=True)})

    def view(peer: int, slot: int) -> int | None:
        """What ``peer`` recovers at ``slot``: the public shares plus its own private one."""
        shares = {s: d for (s, p), d in published.items() if p == slot}
        shares[peer] = decryption_share(secrets[peer], deck[slot])
        return _try_recover(deck[slot], list(shares.values()))

    hands: list[set[int]] = []
    for peer in range(SEATS):
        seen = {p: view(peer, p) for p in range(78)}
        own = {p for p, card in seen.items() if card is not None}
        assert own == {p for p, dest in enumerate(pattern) if dest == peer}
        hands.append({card for card in seen.values() if card is not None})
        assert len(hands[peer]) == 18

    # The chien is recovered by nobody until every seat publishes its shares.
    chien_shares: list[list[Point]] = []
    for s in range(SEATS):
        ctx = ProofContext(TABLE, HAND, "shares", s)
        cts = [deck[p] for p in chien_slots]
        shares, proof = prove_shares(secrets[s], cts, ctx, rngs[s])
        verify_shares(key_shares[s].y, cts, shares, proof, ctx)
        if s < SEATS - 1:
            for i, p in enumerate(chien_slots):  # three seats' shares are not enough
                assert _try_recover(deck[p], [*(c[i] for c in chien_shares), shares[i]]) is None
        chien_shares.append(shares)
    chien = {recover_card(deck[p], [c[i] for c in chien_shares]) for i, p in enumerate(chien_slots)}
    assert len(chien) == 6

    # Together: the 78 cards once each, as the rules engine deals the opened deck order.
    order = [recover_card(ct, [decryption_share(x, ct) for x in secrets]) for ct in deck]
    expected = deal_cards(CONFIG, DEALER, order)
    assert [set(cards_of(h)) for h in expected.hands] == hands
    assert set(cards_of(expected.chien)) == chien
    assert order != list(range(78))
