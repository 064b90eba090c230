"""The table configuration: canonical bytes, digest, and refusal of anything else."""

from __future__ import annotations

import pytest

from tarot_p2p.rules.config import MAX_BONUS, MAX_GAME_LENGTH, AllPass, OlderConfig, TableConfig


def test_default_round_trips_through_its_canonical_bytes() -> None:
    config = TableConfig()
    assert TableConfig.from_canonical_bytes(config.canonical_bytes()) == config
    assert len(config.digest()) == 32


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 6},
        {"game_length": 0},
        {"game_length": MAX_GAME_LENGTH + 1},
        {"poignee_values": (20, 30, MAX_BONUS + 1)},
        {"poignee_values": (-20, 30, 40)},
        {"chelem_values": (400, 200, -MAX_BONUS - 1)},
        {"poignee_values": (20, 30)},
        {"all_pass": "misere_deal"},
        {"misere": 1},
    ],
)
def test_out_of_range_or_mistyped_fields_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TableConfig(**kwargs)  # type: ignore[arg-type]


def test_bounds_are_accepted() -> None:
    TableConfig(chelem_values=(MAX_BONUS, 0, -MAX_BONUS), game_length=MAX_GAME_LENGTH)
    TableConfig(all_pass=AllPass.MISERE_DEAL)


@pytest.mark.parametrize(
    "edit",
    [
        lambda b: b + b"\n",
        lambda b: b.replace(b"players=4", b"players=04"),
        lambda b: b.replace(b"game_length=1", b"game_length=2000000"),
        lambda b: b.replace(b"misere=0", b"misere=true"),
        lambda b: b.replace(b"v2", b"v3"),
        lambda b: b.replace(b"v2", b"v1"),
        lambda b: b"\xff" + b,
    ],
)
def test_non_canonical_bytes_are_refused(edit: object) -> None:
    data = edit(TableConfig().canonical_bytes())  # type: ignore[operator]
    with pytest.raises(ValueError):
        TableConfig.from_canonical_bytes(data)


def test_a_version_1_config_is_refused_in_words_but_read_for_the_history() -> None:
    config = TableConfig(players=5, misere=True)
    v1 = config.canonical_bytes().replace(b"table-config/v2", b"table-config/v1")
    with pytest.raises(OlderConfig, match="older tarot-p2p"):
        TableConfig.from_canonical_bytes(v1)
    assert TableConfig.from_canonical_bytes(v1, older=True) == config
