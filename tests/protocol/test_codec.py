from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarot_p2p.protocol.codec import (
    DecodeError,
    EncodeError,
    Limits,
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
