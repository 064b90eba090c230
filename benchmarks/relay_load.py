"""A relay under attack: hundreds of hostile connections while a real game plays through it.

Real programs, as people run them: ``tarot-p2p relay`` on loopback, a host (``host --bot
--relay``) and two bots that join with the short code it prints, and a second host that
waits in its lobby for players who never come (its short code is what the guessers try).
In this process, strangers connect from the addresses 127.0.0.2 and up (on Linux the whole
of 127/8 is this machine: each stranger binds its socket to its own address):

* **silent**: more sockets than the relay lets an address hold in its greeting, saying
  nothing, opened again as soon as the relay closes them;
* **creators**: ``create`` hellos as fast as they are answered;
* **squatters**: the tables a stranger made, joined as a member again and again (it holds
  their join secrets), and rendezvous channels claimed (its members make it a host);
* **half handshakes**: a ``table`` hello for one of its tables, then silence;
* **guessers**: the waiting host's short code tried with random words, the latest code
  read from that host's terminal.

Meanwhile, from 127.0.0.1, an honest player connects to the game's table with its long
code (the hello, the Noise handshake, in) every ``--probe-every`` seconds, and a bot of the
game is killed and started again in the middle of the game (``--kill-after``: once its
transcript holds that many records, whatever the machine's speed; the default, 20, falls in
the first deal as its hands are opened, before the bids, which every game reaches: a deal
that everybody passes, which ends a one-deal game, is 28 records at three players): it
must get back in and the game finish.

Reported: whether the game finished and its time, the honest connections that got in and
the slowest, the bot's restart, the hostile connections opened and the most held at once,
the relay's answers to them (by reason) and its closings, the tables and channels the
strangers got, the guesses made and refused, the waiting host's lines about its code, and
the relay process's memory (resident, peak) and open sockets (most, at the end).

Usage: ``python benchmarks/relay_load.py [--sources 8] [--deals 1] [--kill-after 20] [--password P]
[--json]`` (from the repository root, with it on ``PYTHONPATH``). Timings are wall-clock
on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tarot_p2p.meet.offer import FramedEnd, find_table
from tarot_p2p.meet.rendezvous import WrongCode
from tarot_p2p.meet.words import WORDS, ShortCode
from tarot_p2p.net.access import create_hello
from tarot_p2p.net.framing import FramedStream, LinkError
from tarot_p2p.net.hello import (
    Claimed,
    ClaimHello,
    Created,
    HubRefused,
    OpenHello,
    TableHello,
    dial,
    knock,
)
from tarot_p2p.net.joincode import JoinCode, link_key
from tarot_p2p.net.link import connect, open_link
from tarot_p2p.net.noise import MAX_MESSAGE, NoiseError
from tarot_p2p.protocol.identity import fingerprint
from tarot_p2p.protocol.transcript import TranscriptFileError, read_frames

PYTHON = [sys.executable, "-m", "tarot_p2p"]
PLAYER = "127.0.0.1"
ERRORS = (LinkError, NoiseError, OSError, trio.TooSlowError)
"""What a hostile connection meets when the relay refuses or closes it."""


def strangers(count: int) -> list[str]:
    if not 1 <= count <= 250:
        raise ValueError("--sources is 1 to 250 (127.0.0.2 to 127.0.0.251)")
    return [f"127.0.0.{i}" for i in range(2, 2 + count)]


@dataclass
class Tally:
    """What the strangers did and what the relay answered them."""

    opened: int = 0
    held: int = 0
    held_max: int = 0
    answers: Counter[str] = field(default_factory=Counter)
    """The relay's error answers, by reason."""
    closed: int = 0
    """Connections the relay closed without an answer (at once, or at a deadline)."""
    tables: int = 0
    members: int = 0
    claims: int = 0
    guesses: int = 0

    def hold(self) -> None:
        self.opened += 1
        self.held += 1
        self.held_max = max(self.held_max, self.held)

    def refused(self, exc: BaseException) -> None:
        if isinstance(exc, HubRefused):
            self.answers[exc.reason] += 1
        else:
            self.closed += 1


@dataclass
class Honest:
    tried: int = 0
    got_in: int = 0
    slowest: float = 0.0
    failures: list[str] = field(default_factory=list)


class Program:
    """One process (``command``), its output in a file read while it runs."""

    def __init__(self, command: list[str], log: Path) -> None:
        self.command = command
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(self.command, stdout=handle, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def find(self, pattern: str) -> list[str]:
        return re.findall(pattern, self.output())

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.running():
            assert self.process is not None
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()


def records_held(profile: Path) -> int:
    """Records in the transcript the seat of ``profile`` keeps (0 before it has one)."""
    path = next(profile.rglob("transcript.tp2p"), None)
    try:
        return 0 if path is None else len(read_frames(path.read_bytes()).records)
    except (OSError, TranscriptFileError):
        return 0


async def said(program: Program, pattern: str, timeout: float) -> str:
    """The first group of ``pattern`` once the program printed it."""
    with trio.fail_after(timeout):
        while not (found := program.find(pattern)):
            if not program.running():
                raise RuntimeError(f"{program.command} stopped:\n{program.output()}")
            await trio.sleep(0.05)
    return found[0]


def relay_usage(pid: int) -> tuple[float, float, int]:
    """Resident and peak memory (MiB) and open sockets of the process ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    sockets = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            sockets += os.readlink(fd).startswith("socket:")
        except OSError:
            continue
    return rss, peak, sockets


class Attack:
    """The strangers' tasks against the relay at ``port``."""

    def __init__(self, port: int, tally: Tally, victim: Program, pace: float) -> None:
        self.port = port
        self.tally = tally
        self.victim = victim
        self.pace = pace
        """Seconds a stranger waits between two tries of the same kind."""
        self.tables: dict[str, list[tuple[Created, bytes]]] = {}
        """Tables each source made, with the join secret it drew."""
        self.keys: dict[str, Ed25519PrivateKey] = {}

    def key(self, source: str) -> Ed25519PrivateKey:
        """The stranger's one identity key (made once: the strangers' processor time is
        the game's too, on one machine)."""
        return self.keys.setdefault(source, Ed25519PrivateKey.generate())

    async def _dial_raw(self, source: str) -> trio.SocketStream:
        stream = await trio.open_tcp_stream(PLAYER, self.port, local_address=source)
        self.tally.hold()
        return stream

    async def _held(self, stream: trio.abc.Stream) -> None:
        """Wait until the relay closes ``stream``."""
        try:
            while await stream.receive_some():
                pass
        except trio.BrokenResourceError:
            pass

    def _release(self) -> None:
        self.tally.held -= 1

    async def silent(self, source: str) -> None:
        while True:
            try:
                stream = await self._dial_raw(source)
            except OSError:
                await trio.sleep(self.pace)
                continue
            try:
                await self._held(stream)
                self.tally.closed += 1
            finally:
                self._release()
                await trio.aclose_forcefully(stream)
            await trio.sleep(self.pace)

    async def creator(self, source: str) -> None:
        while True:
            try:
                table_id, secret = os.urandom(32), os.urandom(16)
                hello = create_hello(self.key(source), table_id, link_key(secret))
                framed, answer = await dial(PLAYER, self.port, hello, 5, local_address=source)
                await framed.aclose()
                if isinstance(answer, Created):
                    self.tally.tables += 1
                    self.tables.setdefault(source, []).append((answer, secret))
            except ERRORS as exc:
                self.tally.refused(exc)
            await trio.sleep(self.pace)

    def _code(self, source: str) -> JoinCode | None:
        """The long code of one of the tables ``source`` made, if any."""
        made = self.tables.get(source)
        if not made:
            return None
        created, secret = random.choice(made)
        key = fingerprint(Ed25519PublicKey.from_public_bytes(created.identity))
        return JoinCode(PLAYER, self.port, created.table_id, key, secret, True)

    async def squatter(self, source: str) -> None:
        """A member at one of its own tables, held as long as the relay lets it."""
        while True:
            code = self._code(source)
            if code is None:
                await trio.sleep(self.pace)
                continue
            try:
                stream = await self._dial_raw(source)
            except OSError:
                await trio.sleep(self.pace)
                continue
            try:
                link = await open_link(stream, self.key(source), code)
                self.tally.members += 1
                await self._held(stream)
                await link.aclose()
            except ERRORS as exc:
                self.tally.refused(exc)
            finally:
                self._release()
                await trio.aclose_forcefully(stream)
            await trio.sleep(self.pace)

    async def claimer(self, source: str) -> None:
        while True:
            try:
                framed, answer = await dial(
                    PLAYER, self.port, ClaimHello(0), 5, local_address=source
                )
            except ERRORS as exc:
                self.tally.refused(exc)
                await trio.sleep(self.pace)
                continue
            self.tally.hold()
            try:
                if isinstance(answer, Claimed):
                    self.tally.claims += 1
                await self._held(framed.stream)
            finally:
                self._release()
                await framed.aclose()
            await trio.sleep(self.pace)

    async def half_handshake(self, source: str) -> None:
        while True:
            code = self._code(source)
            try:
                stream = await self._dial_raw(source)
            except OSError:
                await trio.sleep(self.pace)
                continue
            try:
                framed = FramedStream(stream, MAX_MESSAGE)
                table = code.table_id if code is not None else os.urandom(32)
                await knock(framed, TableHello(table))
                await self._held(stream)  # the handshake never comes
                self.tally.closed += 1
            except ERRORS as exc:
                self.tally.refused(exc)
            finally:
                self._release()
                await trio.aclose_forcefully(stream)
            await trio.sleep(self.pace)

    def _target(self) -> int | None:
        codes = self.victim.find(r"Read this code to your friends: (\d+)-")
        return int(codes[-1]) if codes else None

    async def guesser(self, source: str) -> None:
        while True:
            channel = self._target()
            if channel is None:
                await trio.sleep(self.pace)
                continue
            guess = ShortCode(channel, random.choice(WORDS), random.choice(WORDS))
            try:
                framed, _ = await dial(
                    PLAYER, self.port, OpenHello(channel), 5, local_address=source
                )
            except ERRORS as exc:
                self.tally.refused(exc)
                await trio.sleep(max(self.pace, 1.0))
                continue
            self.tally.hold()
            try:
                with trio.fail_after(30):
                    await find_table(FramedEnd(framed), guess)
            except WrongCode:
                self.tally.guesses += 1
            except ERRORS as exc:
                self.tally.refused(exc)
            finally:
                self._release()
                await framed.aclose()
            await trio.sleep(self.pace)

    async def run(self, sources: list[str], silent: int) -> None:
        """Every stranger's tasks, until cancelled: first what needs a table (as an
        attacker would, before its own silent sockets fill its greeting places), then the
        rest."""
        async with trio.open_nursery() as nursery:
            for source in sources:
                nursery.start_soon(self.creator, source)
                for _ in range(24):
                    nursery.start_soon(self.squatter, source)
                for _ in range(4):
                    nursery.start_soon(self.claimer, source)
            await trio.sleep(1.5)
            for source in sources:
                for _ in range(silent):
                    nursery.start_soon(self.silent, source)
                nursery.start_soon(self.half_handshake, source)
                nursery.start_soon(self.guesser, source)


async def probe(code: JoinCode, every: float) -> None:
    """An honest player connecting from 127.0.0.1 with the game's long code, in a process of
    its own (the strangers' tasks would slow it in theirs): a line an attempt, ``in
    SECONDS`` or ``out REASON``."""
    identity = Ed25519PrivateKey.generate()
    while True:
        start = time.monotonic()
        try:
            link = await connect(code, identity)
        except ERRORS as exc:
            print(f"out {type(exc).__name__}: {exc}", flush=True)
        else:
            print(f"in {time.monotonic() - start:.3f}", flush=True)
            await link.aclose()
        await trio.sleep(every)


def honest_of(lines: list[str]) -> Honest:
    """The honest player's attempts, from the lines :func:`probe` printed."""
    honest = Honest()
    for line in lines:
        verdict, _, rest = line.partition(" ")
        if verdict == "in":
            honest.got_in += 1
            honest.slowest = max(honest.slowest, float(rest))
        elif verdict == "out":
            honest.failures.append(rest)
        else:
            continue
        honest.tried += 1
    return honest


@dataclass
class Report:
    sources: int
    password: bool
    game_finished: bool
    game_seconds: float
    exit_codes: list[int | None]
    bot_restarted: bool
    honest_tried: int
    honest_got_in: int
    honest_slowest_seconds: float
    honest_failures: list[str]
    hostile_opened: int
    hostile_held_max: int
    relay_answers: dict[str, int]
    relay_closed: int
    stranger_tables: int
    stranger_members: int
    stranger_claims: int
    wrong_guesses: int
    victim_told_guessed: int
    victim_codes_shown: int
    relay_rss_mib_max: float
    relay_peak_mib: float
    relay_sockets_max: int
    relay_sockets_end: int


async def run(
    root: Path,
    *,
    sources: int = 8,
    deals: int = 1,
    silent: int = 6,
    pace: float = 0.05,
    probe_every: float = 0.5,
    kill_after: int | None = 20,
    password: str | None = None,
    limit: float = 300.0,
) -> Report:
    """The whole scenario in ``root`` (profiles and logs); its report. ``password``: the
    relay's, known to the hosts and not to the strangers."""
    addresses = strangers(sources)
    programs: list[Program] = []

    def program(name: str, args: list[str]) -> Program:
        """A ``tarot-p2p`` command with a profile of its own."""
        made = Program([*PYTHON, *args, "--profile", str(root / name)], root / f"{name}.log")
        programs.append(made)
        return made

    tally = Tally()
    usage = {"rss": 0.0, "peak": 0.0, "sockets": 0}
    try:
        relay_args = ["relay", "--listen", PLAYER, "--port", "0"]
        common = ["--bot", "--players", "3"]
        if password is not None:
            (root / "password").write_text(password + "\n")
            relay_args += ["--password-file", str(root / "password")]
            common += ["--relay-password", password]
        relay = program("relay", relay_args)
        port = int(await said(relay, r"relay listening on 127\.0\.0\.1:(\d+)", 60))
        address = f"{PLAYER}:{port}"
        common += ["--relay", address]
        victim = program("victim", ["host", *common, "--lobby-timeout", "3600"])
        await said(victim, r"Read this code to your friends: (\S+)", 60)
        assert relay.process is not None
        pid = relay.process.pid

        async def watch() -> None:
            while True:
                rss, peak, sockets = relay_usage(pid)
                usage["rss"] = max(usage["rss"], rss)
                usage["peak"], usage["sockets"] = peak, max(usage["sockets"], sockets)
                await trio.sleep(0.25)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            nursery.start_soon(Attack(port, tally, victim, pace).run, addresses, silent)
            await trio.sleep(3.0)  # the strangers settle in first
            start = time.monotonic()
            host = program("host", ["host", *common, "--deals", str(deals)])
            short = await said(host, r"Read this code to your friends: (\S+)", 60)
            long = JoinCode.decode(await said(host, r"join code: (\S+)", 60))
            bots = [
                program(f"bot{i}", ["bot", short, "--relay", address, "--name", f"Bot{i}"])
                for i in (1, 2)
            ]
            probing = [sys.executable, __file__, "--probe", long.encode()]
            prober = Program([*probing, "--every", str(probe_every)], root / "probe.log")
            programs.append(prober)
            game = [host, *bots]
            restarted = False
            with trio.move_on_after(limit):
                while any(p.running() for p in game):
                    if (
                        kill_after is not None
                        and not restarted
                        and bots[1].running()
                        and records_held(root / "bot2") >= kill_after
                    ):
                        bots[1].kill()
                        bots[1].start()  # the same command: it takes its seat back
                        restarted = True
                    await trio.sleep(0.02)
            seconds = time.monotonic() - start
            codes = [p.process.poll() if p.process else None for p in game]
            end_sockets = relay_usage(pid)[2]
            prober.kill()
            nursery.cancel_scope.cancel()
    finally:
        for made in programs:
            made.kill()
    honest = honest_of((root / "probe.log").read_text().splitlines())
    return Report(
        sources=sources,
        password=password is not None,
        game_finished=codes == [0, 0, 0],
        game_seconds=round(seconds, 1),
        exit_codes=codes,
        bot_restarted=restarted,
        honest_tried=honest.tried,
        honest_got_in=honest.got_in,
        honest_slowest_seconds=round(honest.slowest, 3),
        honest_failures=honest.failures[:5],
        hostile_opened=tally.opened,
        hostile_held_max=tally.held_max,
        relay_answers=dict(sorted(tally.answers.items())),
        relay_closed=tally.closed,
        stranger_tables=tally.tables,
        stranger_members=tally.members,
        stranger_claims=tally.claims,
        wrong_guesses=tally.guesses,
        victim_told_guessed=victim.output().count("Someone is trying codes for your table"),
        victim_codes_shown=victim.output().count("Read this code to your friends"),
        relay_rss_mib_max=round(usage["rss"], 1),
        relay_peak_mib=round(usage["peak"], 1),
        relay_sockets_max=int(usage["sockets"]),
        relay_sockets_end=end_sockets,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=8, help="stranger addresses")
    parser.add_argument("--deals", type=int, default=1, help="deals the game plays")
    parser.add_argument(
        "--silent", type=int, default=6, help="silent sockets each stranger keeps opening"
    )
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between tries")
    parser.add_argument(
        "--probe-every", type=float, default=0.5, help="seconds between honest connections"
    )
    parser.add_argument(
        "--kill-after",
        type=int,
        default=20,
        help="records in a bot's transcript when it is killed (negative: never)",
    )
    parser.add_argument(
        "--password", help="the relay makes tables only for hosts with this password"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--probe", metavar="CODE", help=argparse.SUPPRESS)
    parser.add_argument("--every", type=float, default=0.5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:  # the honest player's own process, started by run()
        trio.run(probe, JoinCode.decode(args.probe), args.every)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        report = trio.run(
            lambda: run(
                Path(folder),
                sources=args.sources,
                deals=args.deals,
                silent=args.silent,
                pace=args.pace,
                probe_every=args.probe_every,
                kill_after=args.kill_after if args.kill_after >= 0 else None,
                password=args.password,
            )
        )
    if args.json:
        print(json.dumps(asdict(report), indent=2))
    else:
        for key, value in asdict(report).items():
            print(f"{key:>24}: {value}")
    return 0 if report.game_finished and report.honest_got_in == report.honest_tried else 1


if __name__ == "__main__":
    sys.exit(main())
