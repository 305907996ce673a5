"""Facts about a hand that every win condition and 番 item reads, computed once per hand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from . import tiles as T
from .decompose import Reading
from .hand import Hand, Player


@dataclass
class HandFacts:
    """Physical facts (independent of the reading): counts of natural tiles, 混, 鸡枪 types, seats.

    `wait_types` answers W of [Amb-24] for `only_wait` (the tiles on which the hand before the win
    would win); `readings.facts_of` passes it, since finding waits means reading hands.
    """

    hand: Hand
    options: dict[str, object]
    wind_order: tuple[str, ...]
    wait_types: Callable[[Hand], set[int]] | None = None

    @cached_property
    def hun(self) -> int:
        return T.hun_of(self.hand.indicator, self.wind_order)

    @cached_property
    def jiqiang(self) -> tuple[int, ...]:
        return T.jiqiang_of(self.hand.indicator)

    @cached_property
    def winner(self) -> Player:
        return self.hand.winner_player

    @cached_property
    def natural_counts(self) -> list[int]:
        """Natural tiles of the winner's complete hand, by type (混 excluded)."""
        counts = [0] * T.N_TYPES
        for t in self.hand.winner_tiles:
            if t != self.hun:
                counts[t] += 1
        return counts

    @cached_property
    def hun_in_hand(self) -> int:
        return sum(1 for t in self.hand.winner_tiles if t == self.hun)

    @cached_property
    def natural_suits(self) -> int:
        return len({T.suit_of(t) for t, c in enumerate(self.natural_counts) if c and T.is_suited(t)})

    @cached_property
    def natural_yaojiu(self) -> bool:
        return any(c and T.is_yaojiu(t) for t, c in enumerate(self.natural_counts))

    @cached_property
    def all_yaojiu(self) -> bool:
        """Every non-混 tile is a 幺九 (anshan 十三幺), with at least one natural tile."""
        nat = self.natural_counts
        return sum(nat) > 0 and all(T.is_yaojiu(t) for t, c in enumerate(nat) if c)

    @cached_property
    def kong_counts(self) -> list[int]:
        counts = [0] * T.N_TYPES
        for m in self.winner.melds:
            if m.is_kong:
                counts[m.tiles[0]] += 4
        return counts

    @cached_property
    def four_natural_not_kong(self) -> int:
        """Types with 4 natural copies in the complete hand, none of them in a 杠 (四归一)."""
        return sum(1 for t, c in enumerate(self.natural_counts) if c == 4 and not self.kong_counts[t])

    @cached_property
    def only_wait(self) -> bool:
        """The winning tile was the hand's only wait, the 混 type aside (胡单张 `single`, [Amb-24])."""
        if self.wait_types is None:
            raise ValueError("these facts were built without wait_types: use readings.facts_of")
        return self.wait_types(self.hand) == {self.hand.win.tile}

    def closed(self, seat: str) -> bool:
        return self.hand.players[seat].closed

    @cached_property
    def closed_losers(self) -> int:
        return sum(1 for s in self.hand.losers if self.closed(s))

    @cached_property
    def discarder(self) -> str | None:
        """The seat that fed the win: the discarder, or the robbed player on 抢杠."""
        return None if self.hand.win.self_drawn else self.hand.win.source

    def count_natural(self, types: tuple[int, ...] | set[int], tiles: tuple[int, ...]) -> int:
        return sum(1 for t in tiles if t in types and t != self.hun)


@dataclass
class Ctx:
    """What a winner-side item predicate sees: the facts and the reading being scored."""

    facts: HandFacts
    reading: Reading

    @property
    def hand(self) -> Hand:
        return self.facts.hand

    @property
    def opt(self) -> dict[str, object]:
        return self.facts.options
