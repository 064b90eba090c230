"""msgpack encoding of protocol messages: one fixed form out, a bounded strict subset in.

Why this shape: msgpack is compact and has a byte-string type, but it is not canonical (an
integer or a string length can be written in several widths, map order is free). So the
rules are asymmetric, and both halves are normative (``protocol/wire.md`` §Codec):

* :func:`encode` writes one fixed form so that test vectors are byte-exact: smallest
  integer width, ``str``/``bin`` types kept apart, map keys sorted by their UTF-8 bytes.
* :func:`decode` accepts any valid msgpack of the *value model* below, within
  :class:`Limits`, and never re-encodes: signatures cover the bytes that travelled, so
  the decoder only has to be strict about *what* it accepts, not about *how* it was written.

Value model: nil, bool, integers in [-2^63, 2^64-1], UTF-8 strings, byte strings, arrays,
and maps whose keys are strings, without duplicate keys. Floats and extension types
(including the timestamp extension) are refused: nothing in the protocol needs them and
floats would break determinism.

:class:`Schema` declares a message body once (wire key, attribute, kind) and turns a
decoded map into a frozen dataclass, or raises :class:`SchemaError` naming the field.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

import msgpack

Value: TypeAlias = bool | int | str | bytes | list["Value"] | dict[str, "Value"] | None
"""A decoded protocol value (the codec's value model)."""

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1


class DecodeError(ValueError):
    """Bytes that are not an acceptable protocol value: malformed, too big, or of a refused type."""


class SchemaError(DecodeError):
    """A well-formed value that does not match the declared message schema."""


class EncodeError(ValueError):
    """A local value outside the value model (a programming error on the sending side)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds enforced while decoding one message, so hostile input costs bounded memory."""

    max_buffer_size: int = 1 << 20
    max_str_len: int = 4096
    max_bin_len: int = 1 << 20
    max_array_len: int = 4096
    max_map_len: int = 64
    max_depth: int = 16


DEFAULT_LIMITS = Limits()


def _sorted_copy(value: object, depth: int) -> object:
    if depth > 64:
        raise EncodeError("value nested too deeply")
    if value is None or isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise EncodeError(f"integer out of range: {value}")
        return value
    if isinstance(value, list | tuple):
        return [_sorted_copy(v, depth + 1) for v in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise EncodeError(f"map key must be str, got {type(key).__name__}")
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        return {k: _sorted_copy(value[k], depth + 1) for k in keys}
    raise EncodeError(f"type not in the value model: {type(value).__name__}")


def encode(value: object) -> bytes:
    """The fixed encoding of ``value`` (see module docstring); raises :class:`EncodeError`."""
    prepared = _sorted_copy(value, 0)
    try:
        data: bytes = msgpack.packb(prepared, use_bin_type=True, strict_types=False)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EncodeError(str(exc)) from exc
    return data


def _refuse_ext(code: int, data: bytes) -> object:
    raise DecodeError(f"extension type {code} refused")


def _pairs(pairs: Sequence[tuple[object, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise DecodeError(f"map key must be a string, got {type(key).__name__}")
        if key in out:
            raise DecodeError(f"duplicate map key {key!r}")
        out[key] = value
    return out


def _check_tree(value: object, max_depth: int) -> None:
    """Refuse types outside the value model and nesting beyond ``max_depth`` (iteratively)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, bool | int | str | bytes):
            continue
        if depth > max_depth:
            raise DecodeError(f"nesting deeper than {max_depth}")
        if isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        else:
            raise DecodeError(f"type not allowed: {type(item).__name__}")


def decode(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Value:
    """Decode exactly one value filling ``data``; any failure is a :class:`DecodeError`."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise DecodeError("input must be bytes")
    if len(data) > limits.max_buffer_size:
        raise DecodeError(f"message of {len(data)} bytes exceeds {limits.max_buffer_size}")
    try:
        value = msgpack.unpackb(
            bytes(data),
            raw=False,
            strict_map_key=True,
            use_list=True,
            object_pairs_hook=_pairs,
            ext_hook=_refuse_ext,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_bin_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
        )
    except DecodeError:
        raise
    except Exception as exc:  # msgpack raises many types (ValueError, FormatError, StackError, ...)
        raise DecodeError(f"malformed msgpack: {type(exc).__name__}: {exc}") from exc
    _check_tree(value, limits.max_depth)
    result: Value = value
    return result


# --- schemas ---------------------------------------------------------------------------


class Kind(abc.ABC):
    """How one field is checked; ``check`` returns the typed value or raises SchemaError."""

    __slots__ = ()

    @abc.abstractmethod
    def check(self, value: object, where: str) -> Any: ...

    def dump(self, value: Any) -> object:
        return value


@dataclass(frozen=True, slots=True)
class UInt(Kind):
    """An integer in ``[minimum, maximum]`` (booleans are not integers here)."""

    maximum: int = INT_MAX
    minimum: int = 0

    def check(self, value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(f"{where}: expected an integer")
        if not self.minimum <= value <= self.maximum:
            raise SchemaError(f"{where}: {value} not in [{self.minimum}, {self.maximum}]")
        return value


@dataclass(frozen=True, slots=True)
class Bytes(Kind):
    """A byte string of length in ``[min_len, max_len]`` (``Bytes(32)`` is exactly 32)."""

    min_len: int
    max_len: int | None = None

    def check(self, value: object, where: str) -> bytes:
        if not isinstance(value, bytes):
            raise SchemaError(f"{where}: expected bytes")
        top = self.min_len if self.max_len is None else self.max_len
        if not self.min_len <= len(value) <= top:
            raise SchemaError(f"{where}: length {len(value)} not in [{self.min_len}, {top}]")
        return value


@dataclass(frozen=True, slots=True)
class Text(Kind):
    """A string of at most ``max_len`` characters, optionally from a fixed set of choices."""

    max_len: int
    choices: tuple[str, ...] = ()

    def check(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise SchemaError(f"{where}: expected a string")
        if len(value) > self.max_len:
            raise SchemaError(f"{where}: longer than {self.max_len}")
        if self.choices and value not in self.choices:
            raise SchemaError(f"{where}: {value!r} not one of {self.choices}")
        return value


@dataclass(frozen=True, slots=True)
class ListOf(Kind):
    """An array of ``min_len``..``max_len`` items of one kind, returned as a tuple."""

    item: Kind
    max_len: int
    min_len: int = 0

    def check(self, value: object, where: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise SchemaError(f"{where}: expected an array")
        if not self.min_len <= len(value) <= self.max_len:
            bounds = f"[{self.min_len}, {self.max_len}]"
            raise SchemaError(f"{where}: {len(value)} items not in {bounds}")
        return tuple(self.item.check(v, f"{where}[{i}]") for i, v in enumerate(value))

    def dump(self, value: Any) -> object:
        return [self.item.dump(v) for v in value]


@dataclass(frozen=True, slots=True)
class AnyMap(Kind):
    """A nested map left undecoded (e.g. an envelope body, checked later by its own schema)."""

    def check(self, value: object, where: str) -> dict[str, Value]:
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: expected a map")
        return value


T = TypeVar("T")


class Schema(Generic[T]):
    """A message type declared once: ``{attribute: (wire_key, kind)}`` mapped onto a dataclass.

    ``load`` requires exactly the declared keys (no missing, no unknown ones) so that two
    peers never disagree on what a signed message says.
    """

    def __init__(self, cls: Callable[..., T], fields: Mapping[str, tuple[str, Kind]]) -> None:
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        if names != set(fields):
            raise TypeError(f"schema fields {sorted(fields)} do not match {sorted(names)}")
        keys = [key for key, _ in fields.values()]
        if len(set(keys)) != len(keys):
            raise TypeError("duplicate wire keys in schema")
        self.cls = cls
        self.fields = dict(fields)
        self._keys = frozenset(keys)

    def load(self, value: object, where: str = "message") -> T:
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: expected a map")
        if value.keys() != self._keys:
            missing = sorted(self._keys - value.keys())
            unknown = sorted(value.keys() - self._keys)
            raise SchemaError(f"{where}: missing keys {missing}, unknown keys {unknown}")
        args = {
            attr: kind.check(value[key], f"{where}.{key}")
            for attr, (key, kind) in self.fields.items()
        }
        return self.cls(**args)

    def dump(self, obj: T) -> dict[str, object]:
        """The wire map of ``obj``, checked against the schema (raises EncodeError)."""
        out = {key: kind.dump(getattr(obj, attr)) for attr, (key, kind) in self.fields.items()}
        try:
            self.load(out, type(obj).__name__)
        except SchemaError as exc:
            raise EncodeError(str(exc)) from exc
        return out


def load_signed(
    wire: bytes, limits: Limits, schema: Schema[T], where: str
) -> tuple[bytes, bytes, T]:
    """``[payload, signature]``, the form of every signed message outside the transcript
    (join request, sync request, forfeit claim): the payload's bytes, the signature's bytes
    and the payload read by ``schema``. Checking the signature is the caller's: which key,
    and over which domain, depends on the message. Raises :class:`DecodeError`."""
    outer = decode(wire, limits)
    if not (isinstance(outer, list) and len(outer) == 2):
        raise DecodeError(f"{where}: not [payload, signature]")
    payload, signature = outer
    if not isinstance(payload, bytes) or not isinstance(signature, bytes):
        raise DecodeError(f"{where}: payload and signature are byte strings")
    return payload, signature, schema.load(decode(payload, limits), where)
