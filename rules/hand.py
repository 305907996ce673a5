"""Typed hand model: what the parser produces and the engine reads (tiles as indices, see `tiles`)."""

from __future__ import annotations

from dataclasses import dataclass, field

SEATS = ("E", "S", "W", "N")
KONG_KINDS = ("kong", "added_kong", "concealed_kong")
MELD_KINDS = ("chi", "pong", *KONG_KINDS)
WIN_BY = ("self_draw", "discard", "robbed_kong")
#: The `win.*` flags of hand-json: 杠上开, 海底捞, 流泪/反弹, 地胡 (which a preset uses: `Preset.win_flags`).
WIN_FLAGS = ("kong_replacement", "last_tiles", "after_kong", "first_draw")


@dataclass(frozen=True)
class Meld:
    kind: str
    tiles: tuple[int, ...]

    @property
    def is_kong(self) -> bool:
        return self.kind in KONG_KINDS

    @property
    def is_triplet(self) -> bool:
        """碰 or any 杠: one 横."""
        return self.kind != "chi"

    @property
    def opens_hand(self) -> bool:
        """吃, 碰 and 明杠 open the hand; 暗杠 does not."""
        return self.kind != "concealed_kong"

    @property
    def exposed_kong(self) -> bool:
        """明杠: 大明杠 or 补杠."""
        return self.kind in ("kong", "added_kong")


@dataclass(frozen=True)
class Player:
    melds: tuple[Meld, ...] = ()
    concealed: tuple[int, ...] | None = None
    discarded_hun: bool = False

    @property
    def closed(self) -> bool:
        return not any(m.opens_hand for m in self.melds)

    @property
    def meld_tiles(self) -> tuple[int, ...]:
        return tuple(t for m in self.melds for t in m.tiles)


@dataclass(frozen=True)
class Win:
    tile: int
    by: str
    source: str | None = None
    kong_replacement: bool = False
    last_tiles: bool = False
    after_kong: bool = False
    first_draw: bool = False

    @property
    def self_drawn(self) -> bool:
        return self.by == "self_draw"


@dataclass(frozen=True)
class Hand:
    preset: str
    options: dict[str, object]
    dealer: str
    indicator: int
    winner: str
    win: Win
    players: dict[str, Player]
    bao_tile: int | None = None
    gun_tile: int | None = None
    room_multiplier: int = 1
    changmao: int = 0
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def winner_player(self) -> Player:
        return self.players[self.winner]

    @property
    def losers(self) -> tuple[str, ...]:
        """The three other seats in play order starting after the winner."""
        i = SEATS.index(self.winner)
        return tuple(SEATS[(i + k) % 4] for k in (1, 2, 3))

    @property
    def winner_tiles(self) -> tuple[int, ...]:
        """The winner's complete hand: concealed + winning tile + every meld tile."""
        p = self.winner_player
        return (*(p.concealed or ()), self.win.tile, *p.meld_tiles)
