"""Addresses a person types and addresses that go into codes.

Why: a relay is given as ``[PASSWORD@]HOST[:PORT]`` (a well-known port when left out; the
password of a relay that makes tables only for hosts who know it, never written into a
code or printed), and an address written into a code must work where the code goes. A
code read to friends on the internet must not hold an address only this machine
(loopback, ``0.0.0.0``) or this network (RFC 1918, link-local, carrier-grade NAT
100.64/10, IPv6 unique-local) can reach.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field

DEFAULT_PORT = 7770
"""A relay's port when the address leaves it out: one number to remember."""
_LOCAL_SUFFIXES = (".local", ".lan", ".home", ".internal", ".localdomain")


class AddressError(ValueError):
    """Text that is not a ``HOST[:PORT]`` address (the message says what to type)."""


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int
    password: str = field(default="", repr=False)
    """A relay's password for making tables (``access.py``); empty for most addresses."""

    def text(self) -> str:
        """The address as others may read it (never with the password)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def typed(self) -> str:
        """The address as typed, password included (to keep in the player's own files)."""
        return f"{self.password}@{self.text()}" if self.password else self.text()


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> Address:
    """``host``, ``host:port``, ``[ipv6]`` or ``[ipv6]:port``, each maybe after
    ``password@``."""
    password, _, text = text.strip().rpartition("@")
    shape = "an address is a host name or number, then optionally : and a port, like "
    shape += f"relay.example.org:{DEFAULT_PORT}"
    host, port_text = text, ""
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise AddressError(f"{text!r} is not an address: {shape}")
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host or any(c.isspace() or c in "/@" for c in host) or not host.isascii():
        raise AddressError(f"{text!r} is not an address: {shape}")
    if not port_text:
        return Address(host, default_port, password)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise AddressError(f"{port_text!r} is not a port (1 to 65535): {shape}")
    return Address(host, int(port_text), password)


def reaches_internet(host: str) -> bool:
    """Whether friends elsewhere on the internet can use ``host`` (a name is taken for a
    public one unless it is obviously local)."""
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        name = host.lower().rstrip(".")
        return "." in name and name != "localhost" and not name.endswith(_LOCAL_SUFFIXES)


def is_loopback(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host.lower() == "localhost"
    return ip.is_loopback or ip.is_unspecified


def code_address(dialed: Address, advertised: Address) -> Address:
    """The relay address to write into a table's long code: the relay's own word when it
    knows a public address; else the one this host reached it by, unless only this
    machine can use that one."""
    if reaches_internet(advertised.host) or is_loopback(dialed.host):
        return advertised
    return dialed


def local_address() -> str:
    """This machine's address on the network the default route uses (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
