"""Small pieces of English shared by the reports a player reads (audit, fairness, stats).

Why one place: the three reports count things in the same sentences ("3 hands", "1 hand");
one helper keeps them saying it the same way.
"""


def count_of(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless the count is one ("1 hand", "2 hands")."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
