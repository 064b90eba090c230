"""A client that asks its own peer for a move the rules refuse: the peer raises
:class:`LocalProtocolError` in words and signs nothing, so the seat is never blamed for
its client's mistake (a signed illegal écart would be evidence against it), and the same
peer then makes the right move as if nothing had happened."""

from __future__ import annotations

import pytest

from tarot_p2p.protocol.errors import LocalProtocolError
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.table import Phase
from tarot_p2p.rules import actions as a
from tarot_p2p.rules.cards import DECK_SIZE, FULL_DECK, KING_MASK, mask_of
from tarot_p2p.rules.deal import chien_size
from tarot_p2p.rules.scoring import Contract
from tests.protocol.harness import Bot, make_table, one_deal, play_game, step


def untouched(peer: Peer) -> tuple[bytes, int, tuple[bytes, ...], bytes]:
    """What a refused call must leave as it was: the transcript, what is queued to send,
    and the secrets (an écart made saves its permutation there)."""
    return (
        peer.transcript.head,
        len(peer.transcript),
        tuple(peer.pending),
        peer.export_secrets(),
    )


def test_an_ecart_the_rules_refuse_signs_nothing() -> None:
    table = make_table(one_deal(4), seed=b"local-misuse")
    bot = Bot(contract=Contract.GARDE, seed=11)
    with pytest.raises(LocalProtocolError, match=r"^no écart to make now$"):
        table.peers[0].discard(0)  # the table is not even dealt
    while table.peers[0].hand.phase is not Phase.ECART:
        bidder = table.observer.expected_sender()
        if table.observer.hand.phase is Phase.BIDDING and bidder is not None:
            with pytest.raises(LocalProtocolError, match=r"^no écart to make now$"):
                table.peer_at(bidder).discard(0)  # his turn, his cards known: to bid
        step(table, bot)
    taker_seat = table.observer.expected_sender()
    assert taker_seat is not None
    taker = table.peer_at(taker_seat)
    size = chien_size(table.config)
    legal = [x.card for x in taker.legal_actions() if isinstance(x, a.Discard)]
    assert len(legal) > size
    held = taker.my_cards()
    stranger = next(c for c in range(DECK_SIZE) if not (held >> c) & 1)
    king = next((c for c in range(DECK_SIZE) if (held & KING_MASK) >> c & 1), None)
    wrong: list[tuple[int, str]] = [
        (mask_of(legal[:size]) | 1 << DECK_SIZE, "^the écart is a set of the 78 cards$"),
        (mask_of(legal[: size - 1]), f"^the écart is {size} cards$"),
        (mask_of(legal[: size + 1]), f"^the écart is {size} cards$"),
        (FULL_DECK, f"^the écart is {size} cards$"),
        (mask_of(legal[: size - 1]) | 1 << stranger, "^illegal écart: "),
    ]
    if king is not None:
        wrong.append((mask_of(legal[: size - 1]) | 1 << king, "^illegal écart: "))
    before = untouched(taker)
    for cards, words in wrong:
        with pytest.raises(LocalProtocolError, match=words):
            taker.discard(cards)
        assert untouched(taker) == before, f"{words}: the peer changed"
    with pytest.raises(LocalProtocolError, match=r"is made with discard\(\), not act\(\)$"):
        taker.act(a.DISCARD[legal[0]])
    for other in table.peers:
        if other is not taker:
            with pytest.raises(LocalProtocolError, match=r"^no écart to make now$"):
                other.discard(mask_of(legal[:size]))
    with pytest.raises(LocalProtocolError, match=r"^an observer has no secrets$"):
        table.observer.export_secrets()
    assert untouched(taker) == before

    play_game(table, bot)  # the taker's right écart, then the whole deal
    sheet = table.observer.sheet
    assert sheet is not None and len(sheet.lines) == 1
    assert table.observer.hand.phase is Phase.DONE
