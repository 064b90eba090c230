"""Tables made at a relay as a host makes them, for the tests: the host draws the table id
and the join secret, the relay is given the link key only (``wire.md`` §5.0). The secrets
are kept here by table id, so a test can build the long code the host would print."""

from __future__ import annotations

import os

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.meet import offer
from tarot_p2p.net import access
from tarot_p2p.net.hello import Created, CreateHello
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.protocol.identity import fingerprint

SECRETS: dict[bytes, bytes] = {}
"""The join secret of every table these helpers drew, by table id."""


def draw() -> tuple[bytes, bytes]:
    """A new table id and join secret, remembered."""
    table_id, secret = os.urandom(32), os.urandom(16)
    SECRETS[table_id] = secret
    return table_id, secret


def create_hello(identity: Ed25519PrivateKey, password: str = "", **options: int) -> CreateHello:
    """A create hello for a new table drawn here."""
    table_id, secret = draw()
    return access.create_hello(identity, table_id, link_key(secret), password, **options)  # type: ignore[arg-type]


async def create_at(
    host: str, port: int, identity: Ed25519PrivateKey, password: str = ""
) -> Created:
    """A new table at the relay ``host:port``, as ``tarot-p2p host --relay`` makes it."""
    table_id, secret = draw()
    return await offer.create_at(host, port, identity, table_id, secret, password)


def long_code(created: Created, port: int, host: str = "127.0.0.1") -> JoinCode:
    """The long code the host of ``created`` prints."""
    key = Ed25519PublicKey.from_public_bytes(created.identity)
    secret = SECRETS[created.table_id]
    return JoinCode(host, port, created.table_id, fingerprint(key), secret, True)
