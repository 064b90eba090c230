"""Names are text, through real programs (issue 17, "names reach terminals raw"): a name a
terminal would obey is refused at the command line and at the host's lobby, and names kept
from before the rule (a transcript, a history) print escaped in ``audit`` and ``history``;
the host's lobby lines and the errors escape them too.

Each test reads the programs' output as bytes and checks that nothing in it is obeyed by a
terminal: no ESC, BEL, BS, C1 control, bidi control or zero-width character.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.cli.errors import explain, tell
from tarot_p2p.cli.lobby_news import lobby_news
from tarot_p2p.crypto.fiat_shamir import PROTOCOL_VERSION
from tarot_p2p.crypto.randomness import DeterministicRandom
from tarot_p2p.files.game_record import Deal, DealDetail, Game, Player, Result, Stop
from tarot_p2p.files.history import open_history, store_game
from tarot_p2p.files.profile import HISTORY_FILE
from tarot_p2p.meet.lobby import JOIN_REQUEST_DOMAIN, LobbyChange, join_request, seat_proof
from tarot_p2p.net.hello import HubRefused
from tarot_p2p.net.joincode import JoinCode
from tarot_p2p.net.link import connect
from tarot_p2p.protocol.codec import encode
from tarot_p2p.protocol.peer import Peer
from tarot_p2p.protocol.transcript import file_header, file_record
from tarot_p2p.rules.config import GameEnd, TableConfig
from tarot_p2p.rules.sheet import LineKind
from tests.protocol.test_names import safe
from tests.seat.test_resume_processes import Program, wait_for

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
OBEYED = (b"\x1b", b"\x07", b"\x08", b"\xc2\x9b", b"\xc2\x85", *(
    chr(c).encode() for c in (0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), 0x2066, 0x2069)
))  # fmt: skip
"""ESC, BEL, BS, C1 CSI and NEL, zero-width and bidi controls, as UTF-8 bytes."""
EVIL = ("Bob\x1b[2J", "\x1b]0;pwned\x07Eve", "Al\x08\x08ice\u202e\u200b")
"""Three players' names as a program without the rule (or a forger) could seat them."""


def tarot(*argv: str | bytes, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tarot_p2p", *argv],
        env=ENV,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def clean(output: bytes) -> None:
    """Nothing in ``output`` that a terminal obeys."""
    for sequence in OBEYED:
        assert sequence not in output, (sequence, output)


def test_a_name_a_terminal_obeys_is_refused_at_the_command_line(tmp_path: Path) -> None:
    """host, join and bot check their player's name before anything is sent, and say why."""
    short = ("7-guitar-orbit", "--relay", "127.0.0.1:1")
    runs = {
        "host": tarot("host", "--name", "Bob\x1b[2J", "--profile", str(tmp_path / "h")),
        "join": tarot("join", *short, "--name", "Eve\u202egnp.exe", "--profile", str(tmp_path)),
        "bot": tarot("bot", *short, "--name", "Ali\u200bce", "--profile", str(tmp_path)),
        # Bytes that are not UTF-8, as a terminal with another encoding sends them.
        "bytes": tarot("host", "--name", b"Bob\xff", "--profile", str(tmp_path / "b")),
    }
    reasons = {
        "host": 'the name "Bob\\x1b[2J" holds a control character (\\x1b), which a terminal',
        "join": 'the name "Eve\\u202egnp.exe" holds an invisible formatting character '
        "(\\u202e RIGHT-TO-LEFT OVERRIDE), which can reverse or hide the text around it",
        "bot": 'the name "Ali\\u200bce" holds an invisible formatting character (\\u200b ZERO',
        "bytes": 'the name "Bob\\udcff" holds bytes that are not text (\\udcff)',
    }
    for command, done in runs.items():
        assert done.returncode == 2, (command, done.stderr)
        err = done.stderr.decode()
        assert err.startswith(f"error: {reasons[command]}") and "Traceback" not in err, err
        assert "Choose a name of letters, digits, spaces and punctuation." in err
        clean(done.stdout + done.stderr)


async def test_the_host_seats_nobody_for_such_a_name_and_prints_none(tmp_path: Path) -> None:
    """A forger's join requests (signed, names as typed) reach a real host: nobody is seated
    for them and its lobby lines hold none of them; the next honest player sits as the
    first joiner."""
    host = Program(
        ["host", "--bot", "--players", "3", "--deals", "1", "--listen", "127.0.0.1",
         "--no-announce", "--name", "Host", "--profile", str(tmp_path / "p0")],
        tmp_path / "host.log",
    )  # fmt: skip
    try:
        found = wait_for(
            "the join code",
            lambda: re.search(r"join code: (\S+)", host.output()),
            time.monotonic() + 60,
        )
        assert isinstance(found, re.Match)
        code = JoinCode.decode(found.group(1))
        forger = Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32)
        honest = Ed25519PrivateKey.from_private_bytes(bytes([8]) * 32)
        with trio.fail_after(60):
            link = await connect(code, forger)
            for name in (*EVIL, "Ann\x9b2J", "Ann\u2066x\u2069"):
                raw = forger.public_key().public_bytes_raw()
                proof = seat_proof(code.secret, code.table_id, raw)
                payload = encode(
                    {
                        "i": raw,
                        "k": "join",
                        "n": name,
                        "p": proof,
                        "t": code.table_id,
                        "v": PROTOCOL_VERSION,
                    }
                )
                await link.send(encode([payload, forger.sign(JOIN_REQUEST_DOMAIN + payload)]))
            await link.send(join_request(honest, "Bob", code.table_id, code.secret))
            while "Bob joined" not in host.output():
                await trio.sleep(0.05)
        await link.aclose()
    finally:
        host.kill()
    lines = [line for line in host.output().splitlines() if "joined" in line]
    assert lines == ["Bob joined; waiting for 1 more player"]
    clean(host.log.read_bytes())


def test_an_old_transcript_with_such_names_prints_escaped_in_audit(tmp_path: Path) -> None:
    """A transcript recorded before the rule (the protocol never refused these names in a
    set-up), of a table that stopped after its set-up. The report names the players in its
    headline and its list of players: escaped in the text, kept in the JSON (whose escapes
    are ASCII)."""
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([i + 1]) * 32) for i in range(3)]
    host = Peer(
        TableConfig(players=3), bytes(32), [k.public_key() for k in keys], list(EVIL),
        seat=0, identity=keys[0], rng=DeterministicRandom(b"old table"),
    )  # fmt: skip
    assert host.next_message() is not None  # the set-up, signed by the host
    path = tmp_path / "old.tp2p"
    path.write_bytes(
        file_header(bytes(32), host.binding) + b"".join(map(file_record, host.transcript))
    )
    report = tarot("audit", str(path))
    assert report.returncode == 4, report.stderr  # verified, but the game is not over
    text = report.stdout.decode()
    assert "Bob\\x1b[2J (member 0) was to send" in text.splitlines()[0]
    assert "Players   Bob\\x1b[2J" in text and "\\x1b]0;pwned\\x07Eve" in text
    assert "Al\\x08\\x08ice\\u202e\\u200b" in text
    as_json = tarot("audit", "--json", str(path))
    members = json.loads(as_json.stdout)["files"][0]["members"]
    assert [m["name"] for m in members] == list(EVIL)
    for done in (report, as_json):
        clean(done.stdout + done.stderr)


def test_a_history_with_such_names_prints_escaped(tmp_path: Path) -> None:
    """A game in the history with such names (a table recorded before the rule) and a stop
    whose reason quotes one: the list, the game's sheet and the totals print them escaped."""
    config = TableConfig(players=3, game_end=GameEnd.DEALS, game_length=2)
    players = tuple(Player(name, f"{i:032x}", i == 0) for i, name in enumerate(EVIL))
    stop = Stop(2, "absence", EVIL[1], f"{EVIL[1]} sent nothing for 600 s", False, 90)
    deal = Deal(1, 0, LineKind.HAND, (-60, 30, 30), f"{EVIL[0]} prise failed by 4",
                DealDetail("prise", 0, None, False))  # fmt: skip
    game = Game(
        table_id="cc" * 32,
        folder="cccccccccccccccc-00000000",
        config=config,
        players=players,
        first_dealer=0,
        deals=(deal,),
        result=Result.ABORTED,
        named=EVIL[1],
        transcript=str(tmp_path / "t.tp2p"),
        transcript_sha256="cd" * 32,
        messages=90,
        stops=(stop,),
    )
    with closing(open_history(tmp_path / HISTORY_FILE, print)) as conn:
        store_game(conn, game, 1.8e9, 1.8e9 + 600)
    profile = ("--profile", str(tmp_path))
    listed, one, totals = (tarot("history", *argv, *profile) for argv in ([], ["1"], ["--players"]))
    assert "stopped, \\x1b]0;pwned\\x07Eve was silent" in listed.stdout.decode()
    assert "Bob\\x1b[2J prise failed by 4" in one.stdout.decode()
    assert "deal 2: \\x1b]0;pwned\\x07Eve sent nothing" in one.stdout.decode()
    assert "Al\\x08\\x08ice\\u202e\\u200b" in totals.stdout.decode()
    as_json = tarot("history", "1", "--json", *profile)
    assert [p["name"] for p in json.loads(as_json.stdout)["players"]] == list(EVIL)
    for done in (listed, one, totals, as_json):
        assert done.returncode == 0, done.stderr
        clean(done.stdout + done.stderr)


def test_the_lobby_lines_and_errors_escape_what_others_wrote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The host's lobby lines, whatever name the lobby let through (a program with other
    Unicode data), and an error quoting another party's words (a relay's refusal)."""
    for kind in ("joined", "renamed", "left", "silent"):
        line = lobby_news(LobbyChange(kind, EVIL[1], ("Host", EVIL[1]), 1))
        assert "\\x1b]0;pwned\\x07Eve" in line and safe(line)
    joined = lobby_news(LobbyChange("joined", EVIL[0], ("Host", EVIL[0]), 1))
    assert joined == "Bob\\x1b[2J joined; waiting for 1 more player"
    explained = explain(HubRefused("busy\x1b[2J\u202e"))
    assert explained is not None and "busy\\x1b[2J\\u202e" in explained[0]
    assert tell(ValueError(f"the set-up names {EVIL[2]}")) == 2
    assert capsys.readouterr().err == "error: the set-up names Al\\x08\\x08ice\\u202e\\u200b\n"
