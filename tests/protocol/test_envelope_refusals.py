"""Why an envelope is refused, and whom the refusal blames (``wire.md`` §7.1).

The outer layer ``[payload, signature]`` is read with limits that admit nothing else (no
string, no map, no third item, no nesting), so junk is refused before any of it is built;
each refusal keeps the bytes that arrived and says what was wrong. Blame needs a verified
signature: a seat number that is not a plain roster index (``True`` is 1 to Python), or an
envelope read without a roster, blames nobody whatever its payload holds.
"""

from __future__ import annotations

import re

import pytest

from tarot_p2p.protocol.codec import Limits, encode
from tarot_p2p.protocol.envelope import open_envelope, seal
from tarot_p2p.protocol.errors import SeatViolation, UnattributedMessage
from tests.protocol.test_envelope import KEYS, PREV, ROSTER, TABLE, base_fields, signed_wire

SIGNATURE = b"y" * 64


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (encode([b"x", SIGNATURE, b"z"]), "envelope: malformed msgpack: ValueError: 3 exceeds "
         "max_array_len(2)"),
        (encode({"a": 1}), "envelope: malformed msgpack: ValueError: 1 exceeds max_map_len(0)"),
        (encode(["text", SIGNATURE]), "envelope: malformed msgpack: ValueError: 4 exceeds "
         "max_str_len(0)"),
        (encode([[b"x"], SIGNATURE]), "envelope: nesting deeper than 1"),
        (encode([b"x"]), "envelope: expected [payload, signature]"),
        (encode(b"x" * 10), "envelope: expected [payload, signature]"),
        (encode([5, SIGNATURE]), "envelope: payload and signature must be bytes"),
        (encode([b"x", 5]), "envelope: payload and signature must be bytes"),
        (encode([b"x", b"short"]), "envelope: signature must be 64 bytes"),
        (encode([encode([1, 2]), SIGNATURE]), "payload: expected a map"),
        (encode([b"\xc1", SIGNATURE]), "payload: malformed msgpack: FormatError: "),
    ],
)  # fmt: skip
def test_junk_is_refused_with_its_reason_and_blames_nobody(wire: bytes, reason: str) -> None:
    with pytest.raises(UnattributedMessage, match=f"^{re.escape(reason)}$") as info:
        open_envelope(wire, table_id=TABLE, roster=ROSTER)
    assert info.value.raw == wire


def test_a_seat_number_that_is_a_boolean_blames_nobody() -> None:
    """``True == 1``: signed by seat 1 with ``s: true``, it must not pass as seat 1's."""
    wire = signed_wire({**base_fields(1), "s": True}, KEYS[1])
    with pytest.raises(UnattributedMessage, match=r"^payload: sender seat True not in roster$"):
        open_envelope(wire, table_id=TABLE, roster=ROSTER)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"v": 1}, "unsupported version 1"),
        ({"x": 1}, "malformed payload: payload: missing keys [], unknown keys ['x']"),
        ({"k": "Bad Kind"}, "bad message kind 'Bad Kind'"),
    ],
)
def test_without_a_roster_a_defect_blames_nobody(change: dict[str, object], reason: str) -> None:
    """Read without a roster (a file whose set-up is not known yet), nothing is verified:
    the same defects that blame a seat when signed blame nobody here."""
    wire = signed_wire({**base_fields(1), **change}, KEYS[1])
    with pytest.raises(SeatViolation):
        open_envelope(wire, table_id=TABLE, roster=ROSTER)
    with pytest.raises(UnattributedMessage, match=f"^{re.escape(reason)}$") as info:
        open_envelope(wire, table_id=TABLE, roster=None)
    assert not isinstance(info.value, SeatViolation) and info.value.raw == wire


@pytest.mark.parametrize("refusal", ["another table", "bad signature", "seat not in roster"])
def test_refusals_before_the_payload_keep_the_bytes(refusal: str) -> None:
    if refusal == "another table":
        wire, reason = signed_wire({**base_fields(1), "t": bytes(32)}, KEYS[1]), "message for "
        reason += "another table (replay?)"
    elif refusal == "bad signature":
        wire, reason = signed_wire(base_fields(1), KEYS[2]), "bad signature for seat 1"
    else:
        wire, reason = signed_wire(base_fields(1), KEYS[1]), "payload: sender seat 1 not in roster"
    roster = ROSTER if refusal != "seat not in roster" else {0: KEYS[0].public_key()}
    with pytest.raises(UnattributedMessage, match=f"^{re.escape(reason)}$") as info:
        open_envelope(wire, table_id=TABLE, roster=roster)
    assert info.value.raw == wire


def test_a_callers_larger_limits_apply_to_sealing_and_opening() -> None:
    """Every layer reads under the caller's limits, not the defaults: a message over the
    default 1 MiB is sealed (its own check included) and opened under limits that allow it,
    and refused under the defaults."""
    big = Limits(max_buffer_size=2 << 20, max_bin_len=2 << 20)
    body = {"blob": b"z" * (1536 << 10)}
    env = seal(KEYS[1], table_id=TABLE, hand=2, seq=7, seat=1, prev=PREV, kind="bid", body=body,
               limits=big)  # fmt: skip
    assert open_envelope(env.wire, table_id=TABLE, roster=ROSTER, limits=big).body == body
    with pytest.raises(UnattributedMessage, match=r"^envelope: "):
        open_envelope(env.wire, table_id=TABLE, roster=ROSTER)


def test_a_callers_smaller_limits_refuse_at_the_outer_layer() -> None:
    wire = signed_wire(base_fields(1), KEYS[1])
    assert len(wire) > 100
    with pytest.raises(
        UnattributedMessage, match=r"^envelope: message of \d+ bytes exceeds 100$"
    ) as info:
        open_envelope(wire, table_id=TABLE, roster=ROSTER, limits=Limits(max_buffer_size=100))
    assert info.value.raw == wire
