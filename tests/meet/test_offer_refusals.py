"""The host's bounds on joiners in the middle of their exchange, and what the host's
program does with a relay's wrong or lost answers (``meet/offer.py``).

Each test builds what it needs itself (no fixture, nothing at import): the mutation check
(docs/mutation.md) runs these tests against every changed check of the module. The relay
is played by a stand-in for ``dial`` (what it is sent is kept, what it answers is chosen),
and the hub's channel by a stand-in claim the test feeds arrival by arrival."""

from __future__ import annotations

import itertools

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarot_p2p.meet import offer
from tarot_p2p.meet.offer import (
    CREATE_TRIES,
    MAX_EXCHANGES,
    claim_at,
    create_at,
    offer_table,
)
from tarot_p2p.meet.rendezvous import JoinerExchange
from tarot_p2p.meet.words import ShortCode
from tarot_p2p.net.access import create_hello
from tarot_p2p.net.channels import Arrival
from tarot_p2p.net.framing import LinkError
from tarot_p2p.net.hello import Claimed, Created, CreateHello, Hello, Ok
from tarot_p2p.net.joincode import link_key
from tests.meet.test_rendezvous import INVITATION, Shown

HOST = Ed25519PrivateKey.from_private_bytes(b"\x33" * 32)
TABLE, SECRET = bytes(range(32)), b"\x07" * 16


class FakeClaim:
    """A channel's claim the test drives: arrivals in, replies kept by joiner."""

    channel = 5

    def __init__(self) -> None:
        self._send, self._arrivals = trio.open_memory_channel[Arrival](100)
        self.replies: dict[int, list[bytes]] = {}

    async def arrive(self, joiner: int, message: bytes | None) -> None:
        await self._send.send(Arrival(joiner, message))
        await trio.testing.wait_all_tasks_blocked()  # the host has answered it, or not

    async def receive(self) -> Arrival:
        return await self._arrivals.receive()

    async def send(self, joiner: int, message: bytes) -> None:
        self.replies.setdefault(joiner, []).append(message)

    async def wrong(self, joiner: int) -> None:
        raise AssertionError("no wrong code is tried here")

    async def aclose(self) -> None:
        pass


class Joiner:
    """A joiner talking to the host through a :class:`FakeClaim`."""

    def __init__(self, claim: FakeClaim, joiner: int, code: ShortCode) -> None:
        self.claim, self.joiner = claim, joiner
        self.exchange = JoinerExchange(code)
        self.confirm = b""

    async def start(self) -> None:
        """Send the first message and read the host's answer."""
        await self.claim.arrive(self.joiner, self.exchange.start())
        (reply,) = self.claim.replies.pop(self.joiner)
        self.confirm = self.exchange.read_reply(reply)

    async def finish(self) -> bool:
        """Whether the host answers the confirmation with the table."""
        await self.claim.arrive(self.joiner, self.confirm)
        replies = self.claim.replies.pop(self.joiner, [])
        if not replies:
            return False
        assert self.exchange.read_table(replies[0]) == INVITATION
        return True


async def hosting(claim: FakeClaim, nursery: trio.Nursery) -> ShortCode:
    """The host's offer on ``claim``: the code it shows."""

    async def claim_channel(wanted: int) -> FakeClaim:
        return claim

    shown = Shown()
    nursery.start_soon(offer_table, claim_channel, INVITATION, shown)
    await shown.changed.wait()
    return shown.codes[0][0]


async def test_the_oldest_exchange_is_forgotten_past_the_bound() -> None:
    """``MAX_EXCHANGES`` joiners may be between their two messages; one more makes the
    host forget the oldest (whose confirmation then gets no answer), and only it."""
    claim = FakeClaim()
    async with trio.open_nursery() as nursery:
        code = await hosting(claim, nursery)
        joiners = [Joiner(claim, j, code) for j in range(MAX_EXCHANGES + 1)]
        for joiner in joiners:
            await joiner.start()
        assert not await joiners[0].finish()
        assert [await j.finish() for j in joiners[1:]] == [True] * MAX_EXCHANGES
        nursery.cancel_scope.cancel()


async def test_a_joiner_that_left_frees_its_place() -> None:
    """Joiners coming and going do not push out one in the middle of its exchange."""
    claim = FakeClaim()
    async with trio.open_nursery() as nursery:
        code = await hosting(claim, nursery)
        patient = Joiner(claim, 0, code)
        await patient.start()
        for j in range(1, MAX_EXCHANGES + 1):
            await Joiner(claim, j, code).start()
            await claim.arrive(j, None)
        assert await patient.finish()
        nursery.cancel_scope.cancel()


class FakeStream:
    closed = False

    async def aclose(self) -> None:
        self.closed = True


class FakeFramed:
    def __init__(self) -> None:
        self.stream = FakeStream()


class FakeRelay:
    """Stands for ``dial``: keeps each hello, answers with the next of ``answers`` (an
    exception is raised instead)."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.hellos: list[Hello] = []
        self.streams: list[FakeStream] = []

    async def __call__(
        self, host: str, port: int, hello: Hello, timeout: float
    ) -> tuple[FakeFramed, object]:
        self.hellos.append(hello)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        framed = FakeFramed()
        self.streams.append(framed.stream)
        return framed, answer


CREATED = Created(TABLE, b"\x44" * 32, "203.0.113.9:7770")


def relay(monkeypatch: pytest.MonkeyPatch, *answers: object) -> FakeRelay:
    fake = FakeRelay(*answers)
    monkeypatch.setattr(offer, "dial", fake)
    return fake


def proven_with(hello: Hello, password: str) -> bool:
    """Whether ``hello`` is a create hello whose proof is of ``password``."""
    assert isinstance(hello, CreateHello)
    again = create_hello(
        HOST, hello.table_id, hello.link_key, password, when=hello.time, nonce=hello.nonce
    )
    return again.proof == hello.proof


@pytest.mark.parametrize("password", ["", "open sesame"])
async def test_a_create_hello_proves_the_password_given_and_the_empty_one_by_default(
    monkeypatch: pytest.MonkeyPatch, password: str
) -> None:
    fake = relay(monkeypatch, CREATED, CREATED)
    args = (password,) if password else ()
    assert await create_at("relay", 7770, HOST, TABLE, SECRET, *args) == CREATED
    (hello,) = fake.hellos
    assert isinstance(hello, CreateHello) and hello.link_key == link_key(SECRET)
    assert proven_with(hello, password) and not proven_with(hello, password + "x")
    assert fake.streams[0].closed


async def test_a_create_lost_every_time_gives_up_after_its_tries(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock
) -> None:
    lost = [LinkError(f"lost {i}") for i in range(CREATE_TRIES)]
    fake = relay(monkeypatch, *lost, CREATED)
    with pytest.raises(LinkError, match=f"^lost {CREATE_TRIES - 1}$"):
        await create_at("relay", 7770, HOST, TABLE, SECRET)
    assert len(fake.hellos) == CREATE_TRIES


async def test_a_create_lost_all_but_the_last_time_is_answered(
    monkeypatch: pytest.MonkeyPatch, autojump_clock: trio.abc.Clock
) -> None:
    lost = [OSError("unreachable")] * (CREATE_TRIES - 1)
    fake = relay(monkeypatch, *lost, CREATED)
    assert await create_at("relay", 7770, HOST, TABLE, SECRET) == CREATED
    assert len(fake.hellos) == CREATE_TRIES


@pytest.mark.parametrize(
    "answer", [Ok(), Claimed(5), Created(bytes(32), CREATED.identity, CREATED.address)]
)
async def test_a_relay_answering_a_create_with_anything_but_that_table_is_refused(
    monkeypatch: pytest.MonkeyPatch, answer: object
) -> None:
    fake = relay(monkeypatch, answer)
    with pytest.raises(LinkError, match=r"^the relay did not answer with the table asked for$"):
        await create_at("relay", 7770, HOST, TABLE, SECRET)
    assert fake.streams[0].closed


@pytest.mark.parametrize("answer", [Ok(), CREATED])
async def test_a_relay_answering_a_claim_with_anything_but_a_channel_is_refused(
    monkeypatch: pytest.MonkeyPatch, answer: object
) -> None:
    fake = relay(monkeypatch, answer)
    with pytest.raises(LinkError, match=r"^the relay did not answer the claim$"):
        await claim_at("relay", 7770, 0)
    assert fake.streams[0].closed


class LostClaim(FakeClaim):
    """A claim whose connection to the relay breaks at once."""

    async def receive(self) -> Arrival:
        raise LinkError("the relay's connection broke")


async def test_claims_are_asked_again_ever_more_slowly_and_a_lost_one_on_its_channel(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A relay that cannot be reached is asked again after 1, 2, 5, then every 10 s; a
    claim that worked starts that count again, after a pause of its own. The first claim
    asks for any channel; a lost one, for its code's channel (the code then stays)."""
    asked: list[tuple[float, int]] = []
    script = ["refused"] * 5 + ["lost"] + ["refused"] * 3

    async def claim_channel(wanted: int) -> FakeClaim:
        asked.append((trio.current_time(), wanted))
        if not script:
            await trio.sleep_forever()
        if script.pop(0) == "lost":
            return LostClaim()
        raise OSError("connection refused")

    shown = Shown()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(offer_table, claim_channel, INVITATION, shown)
        while len(asked) < 10:
            await trio.sleep(1)
        nursery.cancel_scope.cancel()
    times = [when for when, _ in asked]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert gaps == [1, 2, 5, 10, 10, 1, 1, 2, 5]
    assert [wanted for _, wanted in asked] == [0] * 6 + [FakeClaim.channel] * 4
    assert len(shown.codes) == 1
