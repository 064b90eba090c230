"""The relay's access rule at its edges (``wire.md`` §5.0): the clock difference allowed to
the second, on either side; a replay refused for as long as its hello could pass the clock
check, and the memory of accepted hellos emptied after that; a relay with both a password
and a list asks for both. Each test calls :meth:`RelayAccess.check` with its own ``now``,
so no clock is read."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net import access
from tarot_p2p.net.access import CLOCK_SKEW, AllowedHostsError, RelayAccess, read_allowed_hosts
from tarot_p2p.net.hello import CreateHello
from tarot_p2p.net.limits import Refusal
from tarot_p2p.protocol.identity import fingerprint
from tests.net.tables import create_hello

HOST = Ed25519PrivateKey.from_private_bytes(b"\x44" * 32)
OTHER = Ed25519PrivateKey.from_private_bytes(b"\x55" * 32)
PASSWORD = "three little words"
T0 = 1_800_000_000


def reason(rule: RelayAccess, hello: CreateHello, now: float) -> str:
    with pytest.raises(Refusal) as caught:
        rule.check(hello, now)
    return caught.value.reason


@pytest.mark.parametrize("offset", [-CLOCK_SKEW, CLOCK_SKEW])
def test_a_hello_exactly_at_the_allowed_clock_difference_is_taken(offset: int) -> None:
    RelayAccess().check(create_hello(HOST, when=T0 + offset), T0)


@pytest.mark.parametrize("offset", [-CLOCK_SKEW - 1, CLOCK_SKEW + 1])
def test_a_hello_one_second_past_the_clock_difference_is_refused(offset: int) -> None:
    hello = create_hello(HOST, when=T0 + offset)
    assert reason(RelayAccess(), hello, T0) == "clock"


def test_the_clock_refusal_says_how_far_off_the_hello_is() -> None:
    hello = create_hello(HOST, when=T0 - 3600)
    with pytest.raises(Refusal, match=r"create hello -3600 s off"):
        RelayAccess().check(hello, T0)


def test_a_replay_is_refused_for_as_long_as_its_clock_passes() -> None:
    """The last moment a recorded hello passes the clock check is its time plus the allowed
    difference: it is still remembered then."""
    access = RelayAccess(password=PASSWORD)
    hello = create_hello(HOST, PASSWORD, when=T0)
    access.check(hello, T0 - CLOCK_SKEW)  # accepted as early as it may be
    assert reason(access, hello, T0 + CLOCK_SKEW) == "bad-hello"


def test_accepted_hellos_are_forgotten_after_twice_the_clock_difference() -> None:
    """What a relay remembers stays bounded by the hellos of the last twenty minutes: an
    accepted nonce is kept exactly ``2 * CLOCK_SKEW`` seconds, then dropped at the next
    accepted hello."""
    access = RelayAccess(password=PASSWORD)
    first = create_hello(HOST, PASSWORD, when=T0)
    access.check(first, T0)
    at_the_edge = create_hello(HOST, PASSWORD, when=T0 + 2 * CLOCK_SKEW)
    access.check(at_the_edge, T0 + 2 * CLOCK_SKEW)
    assert set(access._accepted) == {first.nonce, at_the_edge.nonce}
    past_it = create_hello(HOST, PASSWORD, when=T0 + 2 * CLOCK_SKEW + 1)
    access.check(past_it, T0 + 2 * CLOCK_SKEW + 1)
    assert set(access._accepted) == {at_the_edge.nonce, past_it.nonce}
    assert access._accepted[past_it.nonce] == T0 + 2 * CLOCK_SKEW + 1


def test_an_open_relay_remembers_nothing() -> None:
    """Anyone may make a table there: a replayed hello is one more, and keeping nonces
    would only let strangers fill the relay's memory."""
    access = RelayAccess()
    hello = create_hello(HOST, when=T0)
    access.check(hello, T0)
    access.check(hello, T0)
    assert access.open and not access._accepted


def test_a_relay_with_a_password_and_a_list_asks_for_both() -> None:
    access = RelayAccess(password=PASSWORD, hosts=frozenset([fingerprint(HOST.public_key())]))
    assert not access.open
    assert reason(access, create_hello(HOST, when=T0), T0) == "password"
    assert reason(access, create_hello(OTHER, PASSWORD, when=T0), T0) == "not-allowed"
    access.check(create_hello(HOST, PASSWORD, when=T0), T0)


def test_a_list_alone_makes_a_relay_not_open() -> None:
    access = RelayAccess(hosts=frozenset([fingerprint(HOST.public_key())]))
    assert not access.open and RelayAccess(password="").open
    hello = create_hello(HOST, when=T0)
    access.check(hello, T0)
    assert reason(access, hello, T0) == "bad-hello"


def test_a_hello_whose_host_is_no_key_is_refused_as_bad() -> None:
    """A host field that is no Ed25519 key fails where the key is read, before the list is
    looked at: ``bad-hello``, not a crash of the relay's connection."""
    hello = replace(create_hello(HOST, when=T0), host=b"\x00" * 31)
    assert reason(RelayAccess(), hello, T0) == "bad-hello"


def test_a_host_without_password_proves_the_empty_one() -> None:
    """``wire.md`` §5.0: the proof is made with an empty password when the host has none,
    so a relay whose password is empty and one with none read the same hellos."""
    table_id, key, nonce = bytes(32), bytes(16), bytes(16)
    default = access.create_hello(HOST, table_id, key, when=T0, nonce=nonce)
    empty = access.create_hello(HOST, table_id, key, "", when=T0, nonce=nonce)
    assert default == empty


def test_a_line_of_the_host_list_ends_at_its_first_hash(tmp_path: Path) -> None:
    key = fingerprint(HOST.public_key())
    path = tmp_path / "hosts.txt"
    path.write_text(f"{key.hex()} # Ana # since 2026\n", encoding="utf-8")
    assert read_allowed_hosts(path) == frozenset([key])


def test_the_host_list_mistakes_are_told_in_whole_sentences(tmp_path: Path) -> None:
    path = tmp_path / "hosts.txt"
    with pytest.raises(AllowedHostsError, match=rf"^cannot read {re.escape(str(path))} \("):
        read_allowed_hosts(path)
    path.write_text("abcd\n", encoding="utf-8")
    message = (
        f"{path}, line 1: 'abcd' is not a key fingerprint (32 hex digits, "
        "as the host's program prints them)"
    )
    with pytest.raises(AllowedHostsError, match=f"^{re.escape(message)}$"):
        read_allowed_hosts(path)
