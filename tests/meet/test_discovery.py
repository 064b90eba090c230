"""The LAN announcement's TXT record (``protocol/lobby.md`` §5) and the choice of addresses:
what a host publishes reads back as the same table, and anything a stranger on the network
publishes is either a valid table or skipped, never an exception."""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from zeroconf import ServiceInfo

from tarot_p2p.cli import lan
from tarot_p2p.cli.lan import choose_table
from tarot_p2p.meet.discovery import (
    SERVICE_TYPE,
    TXT_VALUE_BYTES,
    LanTable,
    lan_addresses,
    listing_order,
    nearest_first,
    read_txt,
    txt_fields,
)
from tarot_p2p.protocol.names import REFUSED, look_alike, normalise

FP = bytes(range(16))
TABLE = LanTable("Zoé", 7, 2, 4, FP, ("192.168.1.20",), 40123)
GOOD = {b"v": b"1", b"ch": b"7", b"n": "Zoé".encode(), b"s": b"2/4", b"fp": FP.hex().encode()}


def through_zeroconf(properties: dict[str, str] | bytes) -> dict[bytes, bytes | None]:
    """The TXT entries as a browser reads them: encoded and decoded by zeroconf."""
    return ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", properties=properties).properties


def read(properties: dict[bytes, bytes | None]) -> LanTable | None:
    return read_txt(properties, ["192.168.1.20"], 40123)


letters = st.characters(blacklist_categories=tuple(REFUSED))
names = st.text(letters, min_size=1, max_size=64).map(normalise).filter(bool)
tables = st.builds(
    LanTable,
    host=names,
    channel=st.integers(1, 9999),
    seated=st.integers(1, 4),
    seats=st.sampled_from([3, 4, 5]),
    fingerprint=st.binary(min_size=16, max_size=16),
    addresses=st.just(("10.0.0.5",)),
    port=st.integers(1, 65535),
).filter(lambda t: t.seated < t.seats)


@given(tables)
def test_announced_table_reads_back(table: LanTable) -> None:
    found = read_txt(through_zeroconf(txt_fields(table)), table.addresses, table.port)
    assert found is not None
    # Names longer than a TXT entry are cut at a character boundary, still normalised.
    assert table.host.startswith(found.host)
    assert len(found.host.encode()) <= TXT_VALUE_BYTES
    assert found == LanTable(
        found.host, table.channel, table.seated, table.seats, table.fingerprint,
        table.addresses, table.port,
    )  # fmt: skip
    if len(table.host.encode()) <= TXT_VALUE_BYTES:
        assert found.host == table.host


def test_txt_has_exactly_the_documented_keys() -> None:
    assert txt_fields(TABLE) == {"v": "1", "ch": "7", "n": "Zoé", "s": "2/4", "fp": FP.hex()}
    assert read(GOOD) == TABLE


@given(st.binary(max_size=600))
def test_garbage_txt_bytes_are_skipped_or_valid(raw: bytes) -> None:
    found = read_txt(through_zeroconf(raw), ["10.0.0.1"], 1)
    assert found is None or found == read_txt(
        through_zeroconf(txt_fields(found)), found.addresses, found.port
    )


@given(
    st.dictionaries(st.binary(max_size=8), st.none() | st.binary(max_size=80), max_size=8),
    st.lists(st.text(max_size=20), max_size=3),
    st.none() | st.integers(-5, 70000),
)
def test_garbage_entries_never_raise(
    properties: dict[bytes, bytes | None], addresses: list[str], port: int | None
) -> None:
    found = read_txt(properties, addresses, port)
    assert found is None or (0 < found.port < 65536 and found.seated < found.seats)


@given(st.sampled_from(sorted(GOOD)), st.none() | st.binary(max_size=40))
def test_any_damaged_entry_skips_the_table(key: bytes, value: bytes | None) -> None:
    found = read({**GOOD, key: value})
    if found is not None:  # the new value happens to be valid: it is read exactly
        assert txt_fields(found)[key.decode()].encode() == value


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (b"v", b"2"),
        (b"v", None),
        (b"ch", b"0"),
        (b"ch", b"07"),
        (b"ch", b"10000"),
        (b"ch", b"-7"),
        (b"ch", "٧".encode()),  # a digit, but not ASCII
        (b"s", b"4/4"),
        (b"s", b"0/4"),
        (b"s", b"2/6"),
        (b"s", b"2/2"),
        (b"s", b"2 /4"),
        (b"fp", FP.hex().upper().encode()),
        (b"fp", FP.hex()[:-1].encode()),
        (b"n", b""),
        (b"n", b" Zoe"),
        (b"n", b"Zo  e"),
        (b"n", b"x" * 65),
        (b"n", b"\xff\xfe"),
        (b"n", "Zo\u200be".encode()),  # a zero-width space: refused by the name rule
        (b"n", "Zo\u202ee".encode()),  # a bidi override
        (b"n", b"Zo\x1b[2Je"),  # ESC
        (b"n", "Zoe\u0301".encode()),  # not NFC ("Zoé" is announced with one é)
    ],
)
def test_invalid_values(key: bytes, value: bytes | None) -> None:
    assert read({**GOOD, key: value}) is None


def test_missing_key_duplicate_key_and_unknown_key() -> None:
    for key in GOOD:
        assert read({k: v for k, v in GOOD.items() if k != key}) is None
    assert read({**GOOD, b"CH": b"8"}) is None  # keys ignore case: two values for ch
    assert read({k.upper(): v for k, v in GOOD.items()}) == TABLE
    assert read({**GOOD, b"future": b"anything"}) == TABLE
    # Case is ASCII only: the Kelvin sign is not "k", so these are two different keys.
    assert read({**GOOD, "\u212a".encode(): b"1", b"k": b"2"}) == TABLE
    assert read({**GOOD, b"\xff": b"1"}) == TABLE


def test_addresses_and_port_are_checked() -> None:
    assert read_txt(GOOD, [], 40123) is None
    assert read_txt(GOOD, ["fe80::1"], 40123) is None  # IPv6 only: the hub listens on IPv4
    assert read_txt(GOOD, ["192.168.1.20"], 0) is None
    assert read_txt(GOOD, ["192.168.1.20"], None) is None
    both = read_txt(GOOD, ["fe80::1", "10.0.0.2", "10.0.0.2", "192.168.1.20"], 1)
    assert both is not None and both.addresses == ("10.0.0.2", "192.168.1.20")


def test_txt_fields_refuse_what_is_never_announced() -> None:
    for bad in (
        LanTable("Zoé", 0, 1, 4, FP, ("10.0.0.1",), 1),
        LanTable("Zoé", 7, 4, 4, FP, ("10.0.0.1",), 1),
        LanTable("Zoé", 7, 1, 6, FP, ("10.0.0.1",), 1),
        LanTable("Zoé", 7, 1, 4, FP[:8], ("10.0.0.1",), 1),
        LanTable("Zo\u200bé", 7, 1, 4, FP, ("10.0.0.1",), 1),
    ):
        with pytest.raises(ValueError):
            txt_fields(bad)


def test_describe_is_one_line_for_a_player() -> None:
    assert TABLE.describe() == "Zoé's table, 2 of 4 seated (192.168.1.20)"
    # A name no reader of ours lets through (another program's data may): shown, not obeyed.
    odd = LanTable("Zo\x1b[2J\u202e", 7, 2, 4, FP, ("192.168.1.20",), 40123)
    assert odd.describe() == "Zo\\x1b[2J\\u202e's table, 2 of 4 seated (192.168.1.20)"
    assert lan.look_alike_warning(odd, [odd, replace(odd, port=1)]) == (
        "two tables are called Zo\\x1b[2J\\u202e's table: ask Zo\\x1b[2J\\u202e which "
        "address is the real one"
    )


INTERFACES = [
    ipaddress.IPv4Interface("127.0.0.1/8"),
    ipaddress.IPv4Interface("192.168.1.7/24"),
    ipaddress.IPv4Interface("172.17.0.1/16"),
]


def test_lan_addresses_follow_where_the_hub_listens() -> None:
    assert lan_addresses("0.0.0.0", INTERFACES) == ["172.17.0.1", "192.168.1.7"]
    assert lan_addresses("", INTERFACES) == ["172.17.0.1", "192.168.1.7"]
    assert lan_addresses("127.0.0.1", INTERFACES) == ["127.0.0.1"]
    assert lan_addresses("192.168.1.7", INTERFACES) == ["192.168.1.7"]
    assert lan_addresses("::", INTERFACES) == []
    assert lan_addresses("myhost.example", INTERFACES) == []
    assert lan_addresses("0.0.0.0", INTERFACES[:1]) == []  # no network: nothing to announce


def test_nearest_address_first() -> None:
    announced = ["127.0.0.1", "10.8.0.3", "192.168.1.20"]
    assert nearest_first(announced, INTERFACES) == ("192.168.1.20", "10.8.0.3", "127.0.0.1")
    # Loopback is ours on every machine: it never counts as a shared network.
    assert nearest_first(["127.0.0.1", "10.8.0.3"], INTERFACES[:1]) == ("10.8.0.3", "127.0.0.1")


# --- the list a player reads: an order no announcer chooses, look-alikes marked ----------

FRIEND = LanTable("Alice", 7, 2, 4, bytes([0x9C] * 16), ("192.168.1.20",), 40123)
SPOOFS = (
    # The same name, the lowest address of the network, the smallest key.
    LanTable("Alice", 7, 1, 4, bytes(16), ("192.168.1.2",), 1),
    LanTable("ALICE", 8, 1, 4, bytes(16), ("192.168.1.3",), 1),  # another case
    LanTable("\uff21lice", 9, 1, 4, bytes(16), ("192.168.1.4",), 1),  # a fullwidth A
)
SECRETS = [hashlib.sha256(b"listing %d" % i).digest() for i in range(64)]


@pytest.mark.parametrize("spoof", SPOOFS)
def test_a_stranger_imitating_a_friend_is_not_listed_first_by_choice(spoof: LanTable) -> None:
    """Whatever it chooses (name, address, key, announcing first), a stranger is first only
    as often as chance makes it, and the order does not follow the announcements' order."""
    first = []
    for secret in SECRETS:
        order = listing_order([spoof, FRIEND], secret)
        assert order == listing_order([FRIEND, spoof], secret)
        first.append(order[0])
    assert 16 <= first.count(FRIEND) <= 48  # 64 draws of one chance in two


def test_look_alike_tables_stay_together_and_repeats_are_listed_once() -> None:
    others = [
        LanTable(name, 5, 1, 3, bytes([i] * 16), (f"10.0.0.{i}",), 2000 + i)
        for i, name in enumerate(("Bob", "Carol", "Dan", "Eve"), 1)
    ]
    tables = [FRIEND, *others, *SPOOFS, SPOOFS[0]]
    for secret in SECRETS[:16]:
        order = listing_order(tables, secret)
        assert len(order) == len(tables) - 1 and set(order) == set(tables)
        alike = [i for i, t in enumerate(order) if look_alike(t.host) == "alice"]
        assert alike == list(range(alike[0], alike[0] + 4))


def test_tables_called_alike_are_marked_in_the_list(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bob = LanTable("Bob", 5, 1, 3, FP, ("10.0.0.9",), 2000)

    async def found(seconds: float) -> list[LanTable]:
        return listing_order([FRIEND, bob, SPOOFS[0]], SECRETS[0])

    monkeypatch.setattr(lan, "browse", found)
    answers = iter(["1", "7-guitar-orbit"])
    assert choose_table(lambda table, code: None, lambda _: next(answers), 0.1) is not None
    out = capsys.readouterr().out.splitlines()
    same = "two tables are called Alice's table: ask Alice which address is the real one"
    for table in (FRIEND, SPOOFS[0]):
        line = next(i for i, x in enumerate(out) if table.describe() in x)
        assert out[line + 1] == f"     warning: {same}"
    line = next(i for i, x in enumerate(out) if bob.describe() in x)
    assert "warning" not in "".join(out[line + 1 : line + 2])
    assert lan.look_alike_warning(SPOOFS[2], [FRIEND, *SPOOFS]) == (
        "four tables have names that look alike (\uff21lice, Alice, ALICE): ask your friend "
        "which address is the real one"
    )
    assert lan.look_alike_warning(bob, [FRIEND, bob]) is None
