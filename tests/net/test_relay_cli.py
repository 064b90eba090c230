"""``tarot-p2p relay`` as a separate process: it prints a join code that peers can use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import connect


async def read_lines(stream: trio.abc.ReceiveStream, count: int) -> list[str]:
    data = b""
    while data.count(b"\n") < count:
        chunk = await stream.receive_some()
        if not chunk:
            break
        data += chunk
    return data.decode().splitlines()


async def test_relay_process_prints_a_working_join_code(tmp_path: Path) -> None:
    secret = "ab" * 16
    command = [sys.executable, "-m", "tarot_p2p.cli.main", "relay", "--join-secret", secret]
    command += ["--profile", str(tmp_path)]
    process = await trio.lowlevel.open_process(command, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        with trio.fail_after(20):
            banner, text = await read_lines(process.stdout, 2)
        assert banner.startswith("relay listening on 127.0.0.1:")
        code = JoinCode.decode(text)
        assert code.secret == bytes.fromhex(secret)
        with trio.fail_after(20):
            alice = await connect(code, Ed25519PrivateKey.generate())
            bob = await connect(code, Ed25519PrivateKey.generate())
            await alice.send(b"hello bob")
            assert await bob.receive() == b"hello bob"
    finally:
        process.kill()
        await process.wait()


def test_relay_rejects_bad_arguments() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tarot_p2p.cli.main", "relay", "--table-id", "abc"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "hex" in result.stderr
