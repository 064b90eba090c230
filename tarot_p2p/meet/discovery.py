"""Finding tables on the local network: a host announces its table with mDNS/DNS-SD, a
joiner lists the tables near it (``protocol/lobby.md`` §5, "LAN discovery").

Theory of operation. A host whose table still has free seats publishes one DNS-SD service
of type ``_tarot-p2p._tcp.local.``: the port of its hub, the machine's addresses, and a TXT
record saying who hosts, how many sit, which rendezvous channel its short code uses and its
hub's fingerprint. Friends on the same network browse that type for a few seconds and see
"Alice's table, 2 of 4 seated". Nothing found this way is trusted: any machine on the LAN
can announce anything, so an announcement only says *where* to knock. The short code the
host reads aloud is what proves the host (the rendezvous's PAKE), and a TXT record that
does not parse is skipped without a word.

Threads. The zeroconf library answers and queries from its own thread (with its own
asyncio loop), and its browser calls our listener from yet another of its threads. Our side
stays trio: the listener only puts ``(name, change)`` in a thread-safe queue, which a trio
task reads back through :func:`trio.to_thread.run_sync`; the library's blocking calls
(register, update, resolve, close) run there too, each bounded by the library's own
timeout, so a cancellation waits at most that long and never leaves a thread behind.
Every :class:`~zeroconf.Zeroconf` we open is closed in a ``finally`` (which also says
goodbye for a service still announced).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import queue
import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

import ifaddr
import trio

if TYPE_CHECKING:
    from zeroconf import InterfaceChoice, ServiceInfo, ServiceStateChange, Zeroconf

from tarot_p2p.net.hello import MAX_CHANNEL
from tarot_p2p.protocol.identity import FINGERPRINT_LEN
from tarot_p2p.protocol.names import NameRefused, checked_name, for_terminal, look_alike

log = logging.getLogger(__name__)

SERVICE_TYPE = "_tarot-p2p._tcp.local."
TXT_VERSION = "1"
SEATS = (3, 4, 5)
TXT_VALUE_BYTES = 253
"""A TXT entry holds at most 255 bytes (RFC 6763 §6.1); ``n=`` takes two of them."""
INSTANCE_BYTES = 63
"""A DNS-SD instance name is one DNS label: at most 63 bytes."""
RESOLVE_MS = 1000
"""Longest wait for one announced table's details (they usually come with the browse)."""

_DECIMAL = re.compile(r"[1-9][0-9]{0,3}")
_SEATED = re.compile(r"([1-9])/([1-9])")
_FINGERPRINT = re.compile(f"[0-9a-f]{{{2 * FINGERPRINT_LEN}}}")


def _lan_errors() -> tuple[type[BaseException], ...]:
    """What a machine without a usable network (no multicast, no interface) raises here.

    (zeroconf is imported where it is first used, here and below, not with this module:
    it brings asyncio and takes about a tenth of a second of processor time to import,
    which a host whose seats are all taken, ``host --bots N``, or a joiner with a long
    code never needs before his first card.)"""
    from zeroconf import Error

    return (Error, OSError, RuntimeError)


class LanUnavailable(Exception):
    """The local network cannot carry announcements (the message says why, in plain words)."""


@dataclass(frozen=True, slots=True)
class LanTable:
    """A table announced on the LAN, as read from its DNS-SD service (untrusted)."""

    host: str
    """The host's name (``lobby.md`` §1 normalised, allowed by §1.2)."""
    channel: int
    """The rendezvous channel of the table's short code (``7`` in ``7-guitar-orbit``)."""
    seated: int
    seats: int
    fingerprint: bytes
    """The hub identity's fingerprint (``wire.md`` §6)."""
    addresses: tuple[str, ...]
    """The IPv4 addresses announced, nearest to this machine first."""
    port: int

    @property
    def address(self) -> str:
        return self.addresses[0]

    def describe(self) -> str:
        """One line for a player choosing a table (the name escaped for a terminal)."""
        host = for_terminal(self.host)
        return f"{host}'s table, {self.seated} of {self.seats} seated ({self.address})"


# --- the TXT record ----------------------------------------------------------------------


def _cut_utf8(text: str, limit: int) -> str:
    """The longest prefix of whole characters of ``text`` within ``limit`` UTF-8 bytes, with
    no white space left at its end (so it is still a normalised name)."""
    data = text.encode()[:limit]
    return data.decode(errors="ignore").rstrip()


def txt_fields(table: LanTable) -> dict[str, str]:
    """The TXT entries announcing ``table`` (``lobby.md`` §5.2)."""
    if not 1 <= table.channel <= MAX_CHANNEL:
        raise ValueError(f"a rendezvous channel is 1 to {MAX_CHANNEL}")
    if table.seats not in SEATS or not 1 <= table.seated < table.seats:
        raise ValueError("a table is announced only while it has free seats")
    if len(table.fingerprint) != FINGERPRINT_LEN:
        raise ValueError(f"a hub fingerprint is {FINGERPRINT_LEN} bytes")
    if not _is_name(table.host):
        raise ValueError("the host's name is not one the name rule allows")
    return {
        "v": TXT_VERSION,
        "ch": str(table.channel),
        "n": _cut_utf8(table.host, TXT_VALUE_BYTES),
        "s": f"{table.seated}/{table.seats}",
        "fp": table.fingerprint.hex(),
    }


def _text(value: bytes | None) -> str | None:
    if value is None:
        return None
    try:
        return value.decode()
    except UnicodeDecodeError:
        return None


def read_txt(
    properties: Mapping[bytes, bytes | None], addresses: Iterable[str], port: int | None
) -> LanTable | None:
    """The table an announcement describes, or ``None`` when anything in it is unusable
    (a stranger's service, another version, a malformed entry): skipped, never an error."""
    fields: dict[str, str | None] = {}
    for key, value in properties.items():
        name = _text(key.lower())  # ASCII case only (RFC 6763 §6.4)
        if name is None:  # not UTF-8: no key of ours
            continue
        if name in fields:  # the same key twice, in different cases: ambiguous
            return None
        fields[name] = _text(value)
    if fields.get("v") != TXT_VERSION:
        return None
    channel, host, seated, fp = fields.get("ch"), fields.get("n"), fields.get("s"), fields.get("fp")
    if channel is None or not _DECIMAL.fullmatch(channel):
        return None
    if host is None or not _is_name(host):
        return None
    if seated is None or (count := _SEATED.fullmatch(seated)) is None:
        return None
    sitting, seats = int(count[1]), int(count[2])
    if seats not in SEATS or sitting >= seats:
        return None
    if fp is None or not _FINGERPRINT.fullmatch(fp):
        return None
    ipv4 = tuple(dict.fromkeys(a for a in addresses if _is_ipv4(a)))
    if not ipv4 or port is None or not 0 < port < 65536:
        return None
    return LanTable(host, int(channel), sitting, seats, bytes.fromhex(fp), ipv4, port)


def _is_name(text: str) -> bool:
    """A name as a host announces it: normalised and allowed by the name rule (§1.2)."""
    try:
        return checked_name(text) == text
    except NameRefused:
        return False


def _is_ipv4(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 4
    except ValueError:
        return False


# --- addresses ---------------------------------------------------------------------------


Interface = ipaddress.IPv4Interface


def local_interfaces() -> list[Interface]:
    """This machine's IPv4 interfaces: each address with its network (none when the
    system will not tell)."""
    try:
        adapters = ifaddr.get_adapters()
    except OSError as exc:
        log.info("lan: cannot list the network interfaces: %r", exc)
        return []
    return [
        ipaddress.IPv4Interface(f"{ip.ip}/{ip.network_prefix}")
        for adapter in adapters
        for ip in adapter.ips
        if ip.is_IPv4 and isinstance(ip.ip, str)
    ]


def lan_addresses(listen: str, interfaces: Iterable[Interface]) -> list[str]:
    """The addresses a hub listening on ``listen`` is announced with: every address of
    ``interfaces`` but loopback when it listens on all of them, else the one it listens on
    (loopback included: the announcement then stays on this machine). IPv4 only, as the
    hub; empty when there is nothing to announce (a host name, IPv6, no network)."""
    if listen in ("", "0.0.0.0"):
        return sorted({str(i.ip) for i in interfaces if not i.ip.is_loopback}, key=_ip_order)
    return [listen] if _is_ipv4(listen) else []


def _ip_order(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def nearest_first(addresses: Iterable[str], interfaces: Iterable[Interface]) -> tuple[str, ...]:
    """``addresses`` ordered by how likely this machine reaches them: those on one of its
    own networks first, then other non-loopback ones, loopback last (an announcement with
    a loopback address comes from this very machine)."""
    mine = [i.network for i in interfaces if not i.ip.is_loopback]

    def rank(text: str) -> int:
        address = ipaddress.IPv4Address(text)
        if address.is_loopback:
            return 2
        return 0 if any(address in n for n in mine) else 1

    return tuple(sorted(addresses, key=rank))


# --- the list a player reads ------------------------------------------------------------


def listing_order(tables: Iterable[LanTable], secret: bytes) -> list[LanTable]:
    """``tables`` in the order a player reads them, which no announcer chooses
    (``lobby.md`` §5.3).

    Why: a stranger on the network chooses everything it announces: its name, when it
    announces (before the friend, or again and again), the addresses in its records (on a
    LAN often its own address too, set by hand) and its key. If any of them decided the
    order, a stranger imitating a friend's table could always be listed first, where a
    hurried player picks. So a table's place is a keyed hash (HMAC-SHA-256 under
    ``secret``, drawn afresh for each listing by :func:`browse`) of what it announced:
    without the secret nobody can aim for a place, and the order does not depend on which
    announcement came first. Tables whose names look alike (:func:`look_alikes`) stay
    together, at the place of the first of them, so that the warnings printed under them
    stand side by side. The same announcement under two service names is listed once.
    """
    unique = list(dict.fromkeys(tables))
    rank = {t: hmac.digest(secret, _announced(t), "sha256") for t in unique}
    groups: dict[str, list[LanTable]] = {}
    for table in sorted(unique, key=rank.__getitem__):
        groups.setdefault(look_alike(table.host), []).append(table)
    return [table for group in groups.values() for table in group]


def _announced(table: LanTable) -> bytes:
    """Every value of ``table``, one per line (no announced value holds a line break)."""
    fields = (
        table.host,
        table.channel,
        table.seated,
        table.seats,
        table.fingerprint.hex(),
        " ".join(table.addresses),
        table.port,
    )
    return "\n".join(map(str, fields)).encode()


def look_alikes(table: LanTable, tables: Iterable[LanTable]) -> list[LanTable]:
    """The other tables of ``tables`` whose host's name reads like ``table``'s: the same,
    or the same once case, compatibility forms and invisible characters are set aside
    (:func:`~tarot_p2p.protocol.names.look_alike`). A stranger may announce a friend's name;
    the list says so instead of choosing between them."""
    key = look_alike(table.host)
    return [t for t in tables if t != table and look_alike(t.host) == key]


# --- zeroconf, from trio -----------------------------------------------------------------


@asynccontextmanager
async def _zeroconf(interfaces: list[str] | InterfaceChoice) -> AsyncIterator[Zeroconf]:
    """A zeroconf instance (its thread started) closed on the way out, whatever happens."""
    from zeroconf import IPVersion, Zeroconf

    try:
        zc = await trio.to_thread.run_sync(
            partial(Zeroconf, interfaces=interfaces, ip_version=IPVersion.V4Only)
        )
    except _lan_errors() as exc:
        log.info("lan: zeroconf cannot start: %r", exc)
        raise LanUnavailable(
            "this computer's network does not let programs find each other"
        ) from exc
    try:
        yield zc
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(zc.close)


def _instance(host: str) -> str:
    """The DNS-SD instance name: the host's name as one label (informative only: readers
    use the TXT's ``n``; zeroconf renames it on a clash)."""
    return _cut_utf8(" ".join(host.replace(".", " ").split()), INSTANCE_BYTES) or "table"


class Announcement:
    """A table announced on the LAN while its seats fill up."""

    def __init__(self, zc: Zeroconf, info: ServiceInfo, table: LanTable) -> None:
        self._zc = zc
        self._info = info
        self._table = table
        self._changed = trio.Event()

    def update(self, *, seated: int | None = None, channel: int | None = None) -> None:
        """Publish a new count of seated players, or the channel of a new short code (in
        the background: this is called from synchronous callbacks). A full table is not
        published: its host withdraws it."""
        table = replace(
            self._table,
            seated=self._table.seated if seated is None else seated,
            channel=self._table.channel if channel is None else channel,
        )
        if table != self._table and table.seated < table.seats:
            txt_fields(table)  # a bad value fails here, in the caller, not in the background
            self._table = table
            self._changed.set()

    async def _publish(self) -> None:
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            info = _service_info(self._info.name, self._table)
            try:
                await trio.to_thread.run_sync(self._zc.update_service, info)
            except _lan_errors() as exc:
                log.info("lan: could not update the announcement: %s", exc)
            else:
                self._info = info


def _service_info(name: str, table: LanTable) -> ServiceInfo:
    from zeroconf import ServiceInfo

    return ServiceInfo(
        SERVICE_TYPE,
        name,
        port=table.port,
        properties=txt_fields(table),
        server=f"tarot-p2p-{table.fingerprint[:6].hex()}.local.",
        parsed_addresses=list(table.addresses),
    )


@asynccontextmanager
async def announce(table: LanTable) -> AsyncIterator[Announcement]:
    """Announce ``table`` on the networks of its addresses until the block ends (then a
    goodbye withdraws it). Raises :class:`LanUnavailable` when it cannot be announced."""
    info = _service_info(f"{_instance(table.host)}.{SERVICE_TYPE}", table)
    async with _zeroconf(list(table.addresses)) as zc:
        try:
            # Probing for a name clash takes about 1.5 s, bounded by zeroconf itself.
            await trio.to_thread.run_sync(
                partial(zc.register_service, info, allow_name_change=True)
            )
        except _lan_errors() as exc:
            log.info("lan: zeroconf cannot register: %r", exc)
            raise LanUnavailable("your table could not be announced on your network") from exc
        announcement = Announcement(zc, info, table)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(announcement._publish)
            try:
                yield announcement
            finally:
                nursery.cancel_scope.cancel()


Change = tuple[str, "ServiceStateChange"]


async def _scan(
    timeout: float, enough: Callable[[dict[str, LanTable]], bool]
) -> dict[str, LanTable]:
    """The tables announced on the LAN, by service name, gathered for ``timeout`` seconds
    or until ``enough`` of them are known."""
    found: dict[str, LanTable] = {}
    interfaces = local_interfaces()
    changes: queue.SimpleQueue[Change | None] = queue.SimpleQueue()

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        # zeroconf's browser thread: only the thread-safe queue is touched here.
        changes.put((name, state_change))

    import zeroconf as lib

    with trio.move_on_after(timeout):
        async with _zeroconf(lib.InterfaceChoice.All) as zc:
            browser = lib.ServiceBrowser(zc, SERVICE_TYPE, handlers=[on_change])
            try:
                while not enough(found):
                    # Abandoned on cancel: the thread touches only the queue, and the
                    # None put below wakes it.
                    change = await trio.to_thread.run_sync(changes.get, abandon_on_cancel=True)
                    if change is None:
                        break
                    name, state = change
                    found.pop(name, None)
                    if state is lib.ServiceStateChange.Removed:
                        continue
                    try:
                        info = await trio.to_thread.run_sync(
                            zc.get_service_info, SERVICE_TYPE, name, RESOLVE_MS
                        )
                    except lib.Error as exc:  # a stranger's name zeroconf cannot use
                        log.info("lan: skipped %r: %r", name, exc)
                        continue
                    if info is None:
                        continue
                    table = read_txt(
                        info.properties, info.parsed_addresses(lib.IPVersion.V4Only), info.port
                    )
                    if table is not None:
                        found[name] = replace(
                            table, addresses=nearest_first(table.addresses, interfaces)
                        )
            finally:
                changes.put(None)
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(browser.cancel)
    return found


async def browse(timeout: float) -> list[LanTable]:
    """Every table announced on the LAN within ``timeout`` seconds, in an order no announcer
    chooses (:func:`listing_order`). Raises :class:`LanUnavailable` when this machine cannot
    listen for announcements."""
    found = await _scan(timeout, lambda _: False)
    return listing_order(found.values(), secrets.token_bytes(32))


async def find_channel(channel: int, timeout: float) -> tuple[str, int] | None:
    """The address and port of a hub announcing rendezvous ``channel`` on the LAN, or
    ``None`` when none answers within ``timeout`` seconds (or the LAN cannot be searched)."""

    def has(found: dict[str, LanTable]) -> bool:
        return any(t.channel == channel for t in found.values())

    try:
        found = await _scan(timeout, has)
    except LanUnavailable as exc:
        log.info("lan: %s", exc)
        return None
    for table in found.values():
        if table.channel == channel:
            return table.address, table.port
    return None
