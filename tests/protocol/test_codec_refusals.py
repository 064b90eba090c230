"""The codec's refusals at their edges, in the right place and in their words.

Each test here answers surviving mutants of ``protocol/codec.py`` (docs/mutation.md): a
limit moved by one, the depth not counted through maps or not checked after a scalar, a
signed message of the wrong shape or read with the default limits, an encoding refused for
an ``IntEnum``, and errors that no longer say which field is wrong (the schema promises to
name it: a peer's log is all there is to tell a bug from an attack). Schemas are built
inside the tests, not at import: mutmut runs every mutant in a process forked after the
test modules were imported. The schemas are tested here alone; ``test_codec.py`` keeps the
value model's encoding and decoding.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import msgpack
import pytest

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
    load_signed,
)


@dataclass(frozen=True)
class Sample:
    count: int
    key: bytes
    name: str
    items: tuple[int, ...]
    extra: dict[str, object]


def sample_schema() -> Schema[Sample]:
    return Schema(
        Sample,
        {
            "count": ("c", UInt(100, minimum=1)),
            "key": ("k", Bytes(4)),
            "name": ("m", Text(5, choices=("ann", "bob", "abcde"))),
            "items": ("i", ListOf(UInt(9), max_len=3, min_len=1)),
            "extra": ("e", AnyMap()),
        },
    )


GOOD = {"c": 5, "k": b"abcd", "m": "ann", "i": [1, 2], "e": {}}


def test_a_schema_reads_and_writes_its_message() -> None:
    schema = sample_schema()
    sample = schema.load(decode(encode(GOOD)))
    assert sample == Sample(5, b"abcd", "ann", (1, 2), {})
    assert schema.dump(sample) == GOOD


def test_a_schema_declaration_error_says_what_is_wrong() -> None:
    @dataclass(frozen=True)
    class Inner:
        n: int

    with pytest.raises(TypeError, match=r"^schema fields \['m'\] do not match \['n'\]"):
        Schema(Inner, {"m": ("n", UInt())})
    with pytest.raises(TypeError, match=r"^duplicate wire keys in schema$"):
        Schema(Sample, {name: ("same", UInt()) for name in Sample.__dataclass_fields__})


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"c": 0}, r"^message\.c: 0 not in \[1, 100\]$"),
        ({"c": True}, r"^message\.c: expected an integer$"),
        ({"c": "5"}, r"^message\.c: expected an integer$"),
        ({"k": b"abc"}, r"^message\.k: length 3 not in \[4, 4\]$"),
        ({"k": "abcd"}, r"^message\.k: expected bytes$"),
        ({"m": 5}, r"^message\.m: expected a string$"),
        ({"m": "abcdef"}, r"^message\.m: longer than 5$"),
        ({"m": "eve"}, r"^message\.m: 'eve' not one of \('ann', 'bob', 'abcde'\)$"),
        ({"i": 5}, r"^message\.i: expected an array$"),
        ({"i": []}, r"^message\.i: 0 items not in \[1, 3\]$"),
        ({"i": [1, 2, 3, 4]}, r"^message\.i: 4 items not in \[1, 3\]$"),
        ({"i": [1, 10]}, r"^message\.i\[1\]: 10 not in \[0, 9\]$"),
        ({"e": []}, r"^message\.e: expected a map$"),
        ({"zz": 1}, r"^message: missing keys \[\], unknown keys \['zz'\]$"),
    ],
)
def test_a_schema_refusal_names_the_field(change: dict[str, object], says: str) -> None:
    with pytest.raises(SchemaError, match=says):
        sample_schema().load({**GOOD, **change})


def test_a_schema_refusal_names_missing_keys_and_non_maps() -> None:
    schema = sample_schema()
    with pytest.raises(SchemaError, match=r"^message: missing keys \['c'\], unknown keys \[\]$"):
        schema.load({k: v for k, v in GOOD.items() if k != "c"})
    with pytest.raises(SchemaError, match=r"^message: expected a map$"):
        schema.load([1, 2])


def test_dumping_a_bad_local_value_names_its_class_and_field() -> None:
    with pytest.raises(EncodeError, match=r"^Sample\.c: 0 not in \[1, 100\]$"):
        sample_schema().dump(Sample(0, b"abcd", "ann", (1,), {}))


def test_schema_bounds_hold_at_their_edges() -> None:
    schema = sample_schema()
    at_edges = schema.load({**GOOD, "m": "abcde", "i": [1, 2, 9]})
    assert (at_edges.name, at_edges.items) == ("abcde", (1, 2, 9))
    ranged = Bytes(2, 8)
    for length in (2, 5, 8):
        assert ranged.check(b"x" * length, "b") == b"x" * length
    for length in (1, 9):
        with pytest.raises(SchemaError, match=rf"^b: length {length} not in \[2, 8\]$"):
            ranged.check(b"x" * length, "b")


def test_the_buffer_limit_holds_at_its_edge() -> None:
    data = encode("ab")
    assert decode(data, Limits(max_buffer_size=len(data))) == "ab"
    with pytest.raises(DecodeError, match=r"^message of 3 bytes exceeds 2$"):
        decode(data, Limits(max_buffer_size=2))


def test_depth_is_counted_through_maps() -> None:
    limits = Limits(max_depth=3)
    assert decode(encode({"a": {"a": {"a": 1}}}), limits) == {"a": {"a": {"a": 1}}}
    with pytest.raises(DecodeError, match=r"^nesting deeper than 3$"):
        decode(encode({"a": {"a": {"a": {"a": 1}}}}), limits)


def test_a_scalar_does_not_end_the_check_of_its_siblings() -> None:
    # The check walks a stack: the last item of an array is looked at first.
    with pytest.raises(DecodeError, match=r"^nesting deeper than 3$"):
        decode(encode([[[[1]]], 1]), Limits(max_depth=3))
    with pytest.raises(DecodeError, match=r"^type not allowed: float$"):
        decode(msgpack.packb([1.5, 1]))


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("ab", r"^input must be bytes$"),
        (msgpack.packb(1.5), r"^type not allowed: float$"),
        (b"\x82\xa1a\x01\xa1a\x02", r"^duplicate map key 'a'$"),
        (b"\x81\xc4\x01a\x02", r"^map key must be a string, got bytes$"),
        (b"\xa2\xff\xfe", r"^malformed msgpack: UnicodeDecodeError: "),
    ],
)
def test_a_decoding_refusal_says_why(data: bytes, says: str) -> None:
    with pytest.raises(DecodeError, match=says):
        decode(data)


# --- signed messages (load_signed) ---------------------------------------------------


@dataclass(frozen=True)
class Named:
    name: str


def named_schema() -> Schema[Named]:
    return Schema(Named, {"name": ("n", Text(10))})


def test_a_signed_message_is_read() -> None:
    payload = encode({"n": "abcd"})
    wire = encode([payload, b"sig"])
    assert load_signed(wire, Limits(), named_schema(), "join request") == (
        payload,
        b"sig",
        Named("abcd"),
    )


@pytest.mark.parametrize(
    ("outer", "says"),
    [
        ([encode({"n": "a"}), b"sig", b"more"], r"^join request: not \[payload, signature\]$"),
        ({"a": encode({"n": "a"}), "b": b"sig"}, r"^join request: not \[payload, signature\]$"),
        ([encode({"n": "a"}), 5], r"^join request: payload and signature are byte strings$"),
        ([encode({"n": 5}), b"sig"], r"^join request\.n: expected a string$"),
    ],
)
def test_a_signed_message_of_the_wrong_shape_is_refused(outer: object, says: str) -> None:
    with pytest.raises(DecodeError, match=says):
        load_signed(encode(outer), Limits(), named_schema(), "join request")


def test_a_signed_message_is_read_with_the_given_limits() -> None:
    wire = encode([encode({"n": "abcd"}), b"sig"])
    with pytest.raises(DecodeError, match="exceeds"):  # the outer message
        load_signed(wire, Limits(max_buffer_size=len(wire) - 1), named_schema(), "join")
    with pytest.raises(DecodeError, match="max_str_len"):  # the payload inside it
        load_signed(wire, Limits(max_str_len=3), named_schema(), "join")


# --- encoding -----------------------------------------------------------------------


def nested(depth: int, wrap: type) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value] if wrap is list else {"a": value}
    return value


@pytest.mark.parametrize("wrap", [list, dict])
def test_encoding_nests_64_deep_and_no_deeper(wrap: type) -> None:
    assert decode(encode(nested(64, wrap)), Limits(max_depth=64)) == nested(64, wrap)
    with pytest.raises(EncodeError, match=r"^value nested too deeply$"):
        encode(nested(65, wrap))


def test_encoding_writes_int_and_str_subclasses_as_plain_values() -> None:
    class Number(enum.IntEnum):
        THREE = 3

    class Word(enum.StrEnum):
        B = "b"

    assert encode([Number.THREE, Word.B]) == encode([3, "b"])


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (2**64, r"^integer out of range: 18446744073709551616$"),
        ({1: 2}, r"^map key must be str, got int$"),
        (1.5, r"^type not in the value model: float$"),
        ("\ud800", r"surrogates not allowed"),
    ],
)
def test_an_encoding_refusal_says_why(value: object, says: str) -> None:
    with pytest.raises(EncodeError, match=says):
        encode(value)
