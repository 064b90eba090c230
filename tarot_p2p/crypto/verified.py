"""Remember, within one process, the proofs already found valid, so each is checked once.

Why: several peers often live in one program — the host and its house bots
(``host --bots N``, ``demo``), the tests — and each checks every proof of the table on
its own, so the same shuffle proof (about 20 ms) is verified four times in a row by the
same processor, on the path to the player's first card. A proof's validity is a pure
function of its bytes and of the statement it proves, so a second check of the same
bytes can answer from memory.

What is remembered: only successes, under the SHA-256 of everything the verification
reads (a label naming the kind of proof, the context, every statement part and the
proof's own bytes, each length-prefixed): a byte changed anywhere is another key, which
is verified in full. Nothing secret is kept, and nothing a peer could feed in makes a
wrong proof pass: only a proof that verified once, or that this process's own prover has
just made, is ever found here. The memory is bounded (:data:`DEFAULT_SIZE` entries, the
oldest dropped first).

Why a proof made here is remembered unchecked: the provers
(:func:`~.shuffle.shuffle_and_prove`, :func:`~.shares.prove_shares`) compute the statement
from their own witness, so the proof they return verifies (the tests check every prover
against its verifier). The seat that made it then no longer checks its own message before
sending it, which made each shuffle cost twice its proving time on the way to the next
seat (stop 30: 65 to 74 ms a shuffle at ``host --bots 3``, of which 30 to 34 ms the
shuffler's check of its own proof); the house bots beside it check nothing either. A
message changed after its proof was made (a cheat) has another key, and is checked in
full.

One check at a time per proof: the seats of one program often receive the same message
at the same moment (the rounds where every seat sends at once, the deal's shares), each
in a worker thread; a second seat that asks about a proof whose check is under way waits
for that check's verdict (:func:`once`) instead of doing the same work beside it, on
the processor the player's page needs too.

A benchmark that times peers apart, as if each were on its own machine, turns it off
(:func:`set_size`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Final

from tarot_p2p.crypto.fiat_shamir import ProofContext, frame

DEFAULT_SIZE: Final = 512
"""Enough for several hands of every proof of a five-seat table (about 130 a hand)."""

_known: OrderedDict[bytes, None] = OrderedDict()
_size = DEFAULT_SIZE
_lock = threading.Lock()
"""The programs verify in worker threads (``seat/runner.py``'s offload): one at a time here."""
_running: dict[bytes, threading.Event] = {}
"""The checks under way, by key: set once each is over (passed or failed)."""


def key(label: bytes, ctx: ProofContext, *parts: bytes) -> bytes:
    """The memory's key for one verification: all its inputs, framed, hashed."""
    h = hashlib.sha256(frame(label) + frame(ctx.encode()))
    for part in parts:
        h.update(frame(part))
    return h.digest()


def known(k: bytes) -> bool:
    """Whether the verification with key ``k`` succeeded before (in this process)."""
    with _lock:
        if k not in _known:
            return False
        _known.move_to_end(k)
        return True


def remember(k: bytes) -> None:
    """Note that the verification with key ``k`` succeeded."""
    with _lock:
        if _size <= 0:
            return
        _known[k] = None
        _known.move_to_end(k)
        while len(_known) > _size:
            _known.popitem(last=False)


def once(k: bytes, check: Callable[[], None]) -> None:
    """Run ``check`` (which raises on a bad proof) unless the verification with key ``k``
    succeeded before; remember it when it passes. While another thread runs the check of
    the same key, wait for it: its success answers for both, and after its failure (or
    with nothing remembered, :func:`set_size`) the check is run here, so every caller
    gets its own exception for a bad proof."""
    while True:
        with _lock:
            if k in _known:
                _known.move_to_end(k)
                return
            under_way = _running.get(k)
            if under_way is None:
                mine = _running[k] = threading.Event()
                break
        under_way.wait()
    try:
        check()
        remember(k)
    finally:
        with _lock:
            del _running[k]
        mine.set()


def set_size(size: int) -> None:
    """Keep at most ``size`` successes (0: remember nothing, every proof checked in full);
    forgets what was remembered."""
    global _size
    with _lock:
        _size = max(0, size)
        _known.clear()
