"""``tarot-p2p relay --password-file`` and ``host --relay-password`` as people run them: the
relay says who may make tables, a host without the password is told what to do, a host
with it gets its code, and the password is remembered with the relay, never printed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.files.profile import Profile
from tarot_p2p.net.hello import HubRefused
from tests.net.tables import create_at
from tests.net.test_relay_cli import ENV, RELAY, read_until

HOST = [*RELAY[:-1], "host", "--bot", "--players", "3", "--no-announce"]
PASSWORD = "three little words"
OTHER = Ed25519PrivateKey.from_private_bytes(b"\x46" * 32)


async def test_a_relay_with_a_password_makes_tables_only_for_hosts_who_give_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "password.txt").write_text(PASSWORD + "\n")
    command = [*RELAY, "--listen", "127.0.0.1", "--port", "0", "--profile", str(tmp_path / "r")]
    command += ["--password-file", str(tmp_path / "password.txt"), "--tables-per-address", "1"]
    relay = await trio.lowlevel.open_process(command, stdout=subprocess.PIPE, env=ENV)
    try:
        assert relay.stdout is not None
        with trio.fail_after(30):
            found = await read_until(
                relay.stdout,
                r"hosts use --relay (127\.0\.0\.1:\d+)\n(.|\n)*only for the hosts you allow",
            )
        address = found.group(1)
        profile = ["--profile", str(tmp_path / "host")]
        with trio.fail_after(60):
            refused = await trio.run_process(
                [*HOST, "--relay", address, *profile], capture_stderr=True, check=False, env=ENV
            )
        error = refused.stderr.decode()
        assert refused.returncode == 1, error
        assert f"the relay at {address} makes tables only for hosts who give its password" in error
        assert "--relay-password PASSWORD" in error and "Traceback" not in error
        host = await trio.lowlevel.open_process(
            [*HOST, "--relay-password", PASSWORD, *profile], stdout=subprocess.PIPE, env=ENV
        )
        try:
            assert host.stdout is not None
            with trio.fail_after(60):
                said = await read_until(
                    host.stdout, r"Read this code to your friends: (\S+)(.|\n)*join code: tp2p1-"
                )
            assert re.fullmatch(r"\d+-[a-z]+-[a-z]+", said.group(1))
            # The short code, read aloud, comes first; the long one after it (as in the docs).
            assert "join code:" not in said.string[: said.start()]
            # Its one table is all this address may have there (--tables-per-address 1).
            port = int(address.rsplit(":", 1)[1])
            with pytest.raises(HubRefused) as caught:
                await create_at("127.0.0.1", port, OTHER, PASSWORD)
            assert caught.value.reason == "too-many"
        finally:
            host.kill()
            await host.wait()
    finally:
        relay.kill()
        await relay.wait()
    # Remembered with the relay (in the player's own settings), for the next run.
    assert Profile(tmp_path / "host").relay() == f"{PASSWORD}@{address}"
