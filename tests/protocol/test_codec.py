from __future__ import annotations

from dataclasses import dataclass

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.protocol.codec import (
    AnyMap,
    Bytes,
    DecodeError,
    EncodeError,
    Limits,
    ListOf,
    Schema,
    SchemaError,
    Text,
    UInt,
    decode,
    encode,
)

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=20,
)


def decode_or_refuse(data: bytes) -> None:
    """Decoding arbitrary bytes either refuses with DecodeError or yields a model value."""
    try:
        value = decode(data)
    except DecodeError:
        return
    assert decode(encode(value)) == value


def test_encoding_is_fixed_and_documented() -> None:
    # Keys sorted by UTF-8 bytes, smallest integer widths, str and bin kept apart.
    assert encode({"b": 1, "a": [b"x", "y", None, True, -5, 300]}) == bytes.fromhex(
        "82a16196c40178a179c0c3fbcd012ca16201"
    )
    assert encode({"é": 0, "z": 0}) == bytes.fromhex("82a17a00a2c3a900")


@given(values)
@settings(max_examples=200)
def test_round_trip(value: object) -> None:
    assert decode(encode(value)) == value
    assert encode(decode(encode(value))) == encode(value)


@given(st.binary(max_size=64))
@settings(max_examples=500)
def test_decode_never_fails_otherwise(data: bytes) -> None:
    decode_or_refuse(data)


@given(values, st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=255))
@settings(max_examples=300)
def test_decode_of_mutated_encodings(value: object, index: int, byte: int) -> None:
    data = bytearray(encode(value))
    data[index % len(data)] = byte
    decode_or_refuse(bytes(data))


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (msgpack.packb(1.5), "float"),
        (msgpack.packb(msgpack.ExtType(5, b"x")), "ext"),
        (msgpack.packb(msgpack.Timestamp(1, 0)), "ext"),
        (b"\x82\xa1a\x01\xa1a\x02", "duplicate"),
        (b"\x81\x01\x02", "map key"),
        (b"\x81\xc4\x01a\x02", "map key"),
        (b"\xa2\xff\xfe", "utf-8"),
        (b"\x01\x02", "extra"),
        (b"\x92\x01", "incomplete"),
        (b"", "incomplete"),
        (b"\xc1", "malformed"),
    ],
)
def test_refused_inputs(data: bytes, why: str) -> None:
    with pytest.raises(DecodeError):
        decode(data)


def test_limits() -> None:
    limits = Limits(
        max_buffer_size=100,
        max_str_len=3,
        max_bin_len=3,
        max_array_len=3,
        max_map_len=2,
        max_depth=3,
    )
    assert decode(encode({"a": [1, [2]], "b": "abc"}), limits) == {"a": [1, [2]], "b": "abc"}
    too_big = [
        b"\x00" * 101,
        encode("abcd"),
        encode(b"abcd"),
        encode([1, 2, 3, 4]),
        encode({"a": 1, "b": 2, "c": 3}),
        encode([[[[1]]]]),
    ]
    for data in too_big:
        with pytest.raises(DecodeError):
            decode(data, limits)


def test_deep_nesting_is_refused_not_crashing() -> None:
    with pytest.raises(DecodeError):
        decode(b"\x91" * 5000 + b"\xc0")


def test_encode_refuses_values_outside_the_model() -> None:
    for bad in (1.0, {1: 2}, 2**64, -(2**63) - 1, {1, 2}, object()):
        with pytest.raises(EncodeError):
            encode(bad)


@dataclass(frozen=True)
class Inner:
    n: int


@dataclass(frozen=True)
class Sample:
    count: int
    key: bytes
    name: str
    items: tuple[int, ...]
    extra: dict[str, object]


SAMPLE = Schema(
    Sample,
    {
        "count": ("c", UInt(100, minimum=1)),
        "key": ("k", Bytes(4)),
        "name": ("m", Text(5, choices=("ann", "bob"))),
        "items": ("i", ListOf(UInt(9), max_len=3, min_len=1)),
        "extra": ("e", AnyMap()),
    },
)
GOOD = {
    "c": 5,
    "k": b"abcd",
    "m": "ann",
    "i": [1, 2],
    "e": {},
}


def test_schema_loads_typed_values_and_dumps_them_back() -> None:
    sample = SAMPLE.load(decode(encode(GOOD)))
    assert sample == Sample(5, b"abcd", "ann", (1, 2), {})
    assert SAMPLE.dump(sample) == GOOD


@pytest.mark.parametrize(
    "change",
    [
        {"c": 0},
        {"c": True},
        {"c": "5"},
        {"k": b"abc"},
        {"k": "abcd"},
        {"m": "eve"},
        {"i": []},
        {"i": [1, 2, 3, 4]},
        {"i": [10]},
        {"e": []},
        {"zz": 1},
    ],
)
def test_schema_refusals(change: dict[str, object]) -> None:
    with pytest.raises(SchemaError):
        SAMPLE.load({**GOOD, **change})


def test_schema_refuses_missing_keys_and_non_maps() -> None:
    with pytest.raises(SchemaError, match="missing"):
        SAMPLE.load({k: v for k, v in GOOD.items() if k != "c"})
    with pytest.raises(SchemaError):
        SAMPLE.load([1, 2])


def test_schema_dump_checks_local_values() -> None:
    with pytest.raises(EncodeError):
        SAMPLE.dump(Sample(0, b"abcd", "ann", (1,), {}))


def test_schema_declaration_must_match_dataclass() -> None:
    with pytest.raises(TypeError):
        Schema(Inner, {"m": ("n", UInt())})
    with pytest.raises(TypeError):
        Schema(Sample, {name: ("same", UInt()) for name in Sample.__dataclass_fields__})
