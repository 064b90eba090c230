"""The pieces of the per-source limits on their own: what a source is, fair places, and
the wrong codes counted per source."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio

from tarot_p2p.net.limits import FairSlots, Refusal, Tries, source_key


@pytest.mark.parametrize(
    ("host", "source"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),  # one home's /64 is one source
        ("::ffff:198.51.100.3", "198.51.100.3"),
        ("fe80::1%eth0", "fe80::/64"),
        ("fe80::1%", "fe80::/64"),  # whatever follows the first % is the zone, left out
        ("fe80::1%%", "fe80::/64"),
    ],
)
def test_a_source_is_an_ipv4_address_or_an_ipv6_64(host: str, source: str) -> None:
    assert source_key(host) == source


class Evictions:
    def __init__(self) -> None:
        self.evicted: list[str] = []

    def of(self, name: str) -> Callable[[], None]:
        return lambda: self.evicted.append(name)


def test_a_source_holding_its_share_is_refused() -> None:
    places, kicked = FairSlots(total=8, per_source=2), Evictions()
    places.take("a", kicked.of("a1"))
    places.take("a", kicked.of("a2"))
    with pytest.raises(Refusal) as caught:
        places.take("a", kicked.of("a3"))
    assert caught.value.reason == "busy" and len(places) == 2 and not kicked.evicted


def test_when_full_a_smaller_source_takes_the_oldest_place_of_the_largest() -> None:
    places, kicked = FairSlots(total=5, per_source=3), Evictions()
    slots = {name: places.take(name[0], kicked.of(name)) for name in ("a1", "b1", "a2", "b2")}
    slots["a3"] = places.take("a", kicked.of("a3"))
    assert len(places) == 5
    honest = places.take("h", kicked.of("h1"))
    assert kicked.evicted == ["a1"] and slots["a1"].evicted and honest.source == "h"
    assert places.held_by("a") == 2 and len(places) == 5
    # Now a and b hold two each: the next newcomer takes b's oldest (older than a's now).
    places.take("i", kicked.of("i1"))
    assert kicked.evicted == ["a1", "b1"]
    # The largest holder itself is refused, not let in at another's cost.
    with pytest.raises(Refusal):
        places.take("a", kicked.of("a4"))
    places.release(slots["a1"])  # an evicted place given back again: nothing happens
    assert len(places) == 5


async def test_wrong_codes_are_counted_per_source_and_come_back_slowly(
    autojump_clock: trio.abc.Clock,
) -> None:
    tries = Tries(allowed=5, back_after=300.0)
    for _ in range(5):
        assert not tries.refused("a")
        tries.wrong("a")
    assert tries.refused("a") and not tries.refused("b")
    await trio.sleep(299)
    assert tries.refused("a")
    await trio.sleep(1)
    assert not tries.refused("a")  # one try back after 300 s
    tries.wrong("a")
    assert tries.refused("a")
    await trio.sleep(5 * 300)
    tries.wrong("b")
    assert len(tries) == 1  # "a" had all its tries back: forgotten


def test_when_full_a_source_as_large_as_the_largest_is_refused_with_the_reason_given() -> None:
    places, kicked = FairSlots(total=2, per_source=3), Evictions()
    places.take("a", kicked.of("a1"))
    places.take("b", kicked.of("b1"))
    with pytest.raises(Refusal) as caught:
        places.take("a", kicked.of("a2"), reason="no-channel")
    assert caught.value.reason == "no-channel" and not kicked.evicted
    with pytest.raises(Refusal) as caught:
        places.take("b", kicked.of("b2"))
    assert caught.value.reason == "busy" and len(places) == 2


async def test_another_sources_wrong_code_gives_no_try_back(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Forgetting the sources whose tries all came back must forget only those."""
    tries = Tries(allowed=2, back_after=300.0)
    tries.wrong("a")
    tries.wrong("a")
    await trio.sleep(10)
    tries.wrong("b")
    assert tries.refused("a") and len(tries) == 2
