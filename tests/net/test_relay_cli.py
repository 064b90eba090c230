"""``tarot-p2p relay`` as a separate process: it says the address hosts use, makes tables
for them, and says in words what is wrong (a port in use, an address of this network)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.net.tables import create_at

HOST = Ed25519PrivateKey.from_private_bytes(b"\x44" * 32)
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
RELAY = [sys.executable, "-m", "tarot_p2p", "relay"]


async def read_until(stream: trio.abc.ReceiveStream, pattern: str) -> re.Match[str]:
    data = b""
    while (found := re.search(pattern, data.decode())) is None:
        chunk = await stream.receive_some()
        assert chunk, data.decode()
        data += chunk
    return found


async def test_the_relay_says_its_address_and_makes_tables(tmp_path: Path) -> None:
    command = [*RELAY, "--listen", "127.0.0.1", "--port", "0", "--profile", str(tmp_path)]
    process = await trio.lowlevel.open_process(command, stdout=subprocess.PIPE, env=ENV)
    try:
        assert process.stdout is not None
        with trio.fail_after(30):
            found = await read_until(
                process.stdout, r"hosts use --relay 127\.0\.0\.1:(\d+)\n.*from this computer only"
            )
            port = int(found.group(1))
            first = await create_at("127.0.0.1", port, HOST)
            second = await create_at("127.0.0.1", port, HOST)
        assert first.table_id != second.table_id
        assert first.address == f"127.0.0.1:{port}"
    finally:
        process.kill()
        await process.wait()
    assert len(re.findall(r'"table_id"', (tmp_path / "relay.json").read_text())) == 2


async def test_a_port_in_use_is_said_in_words(tmp_path: Path) -> None:
    with trio.socket.socket() as taken:
        await taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [*RELAY, "--listen", "127.0.0.1", "--port", str(port)]
        command += ["--profile", str(tmp_path)]
        with trio.fail_after(60):
            result = await trio.run_process(command, capture_stderr=True, check=False, env=ENV)
    error = result.stderr.decode()
    assert result.returncode == 1
    assert f"port {port} is already in use" in error and "--port" in error
    assert "Traceback" not in error


def test_an_address_of_this_network_is_no_public_address(tmp_path: Path) -> None:
    result = subprocess.run(
        [*RELAY, "--public-address", "192.168.1.5:7770", "--profile", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert result.returncode == 2
    assert "cannot be reached from the internet" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_relay_on_every_network_without_public_address_says_how_to_fix_it() -> None:
    from tarot_p2p.cli.relay import reach_note
    from tarot_p2p.net.address import Address

    note = reach_note(None, Address("192.168.1.5", 7770))
    assert note is not None and "this network only" in note and "--public-address" in note
    assert reach_note(Address("relay.example.org", 7770), Address("x", 1)) is None
    assert "this computer only" in (reach_note(None, Address("127.0.0.1", 1)) or "")
