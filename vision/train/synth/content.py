"""What a scene shows: the tiles of a winning hand (standing tiles, melds, winning tile, 混 indicator).

The hands are plausible rather than always legal: the generator's job is to show the layouts and
faces a detector and the layout reader meet, with no face used more than four times.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.classes import FACE_NAMES, HONOURS, SUITS

MELD_KINDS = ("chi", "pong", "kong", "concealed_kong")


@dataclass
class MeldSpec:
    """One meld: kind, its faces left to right (kongs: four), how it is laid out.

    shape: 'row' (tiles side by side) or 'stacked' (┴: three in a row, the fourth on the middle one).
    sideways: position of the claimed tile laid across, or None.
    down: positions shown face down (concealed kongs).
    """

    kind: str
    faces: list[str]
    shape: str = "row"
    sideways: int | None = None
    down: list[int] = field(default_factory=list)


@dataclass
class HandSpec:
    """The hand of one scene; `winning` is in `standing` (last) when not set apart."""

    standing: list[str]
    melds: list[MeldSpec]
    winning: str
    winning_apart: bool
    indicator: str | None


def _sort_key(suit_order: list[str]):
    def key(code: str) -> tuple[int, int]:
        if code in HONOURS:
            return (len(suit_order), HONOURS.index(code))
        return (suit_order.index(code[1]), int(code[0]))

    return key


class _Pool:
    """Draws faces with at most four copies of each."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.left = dict.fromkeys(FACE_NAMES, 4)

    def take(self, code: str, n: int = 1) -> bool:
        if self.left[code] < n:
            return False
        self.left[code] -= n
        return True

    def random(self, suits: list[str]) -> str:
        for _ in range(100):
            s = suits[int(self.rng.integers(len(suits)))]
            code = (
                HONOURS[int(self.rng.integers(len(HONOURS)))]
                if s == "z"
                else f"{int(self.rng.integers(1, 10))}{s}"
            )
            if self.take(code):
                return code
        for code, n in self.left.items():  # pool nearly empty: any face left
            if n > 0:
                self.left[code] -= 1
                return code
        raise RuntimeError("face pool exhausted")


def _meld(kind: str, pool: _Pool, rng: np.random.Generator, suits: list[str]) -> MeldSpec:
    for _ in range(200):
        if kind == "chi":
            s = [x for x in suits if x != "z"] or list(SUITS)
            suit = s[int(rng.integers(len(s)))]
            start = int(rng.integers(1, 8))
            faces = [f"{start + i}{suit}" for i in range(3)]
            if all(pool.left[f] > 0 for f in faces):
                return _chi(faces, pool, rng)
        else:
            n = 3 if kind == "pong" else 4
            suit = suits[int(rng.integers(len(suits)))]
            code = (
                HONOURS[int(rng.integers(len(HONOURS)))]
                if suit == "z"
                else f"{int(rng.integers(1, 10))}{suit}"
            )
            if pool.take(code, n):
                return _same_faces(kind, code, rng)
    return _meld_from_what_is_left(kind, pool, rng)


def _chi(faces: list[str], pool: _Pool, rng: np.random.Generator) -> MeldSpec:
    """A chi of `faces` (each still in the pool), taken from the pool, maybe with one laid across."""
    for f in faces:
        pool.take(f)
    return MeldSpec("chi", faces, sideways=int(rng.integers(3)) if rng.random() < 0.8 else None)


def _same_faces(kind: str, code: str, rng: np.random.Generator) -> MeldSpec:
    """A pong, kong or concealed kong of `code` (already taken from the pool), laid out at random."""
    if kind == "pong":
        return MeldSpec("pong", [code] * 3, sideways=int(rng.integers(3)) if rng.random() < 0.8 else None)
    if kind == "kong":
        stacked = rng.random() < 0.65
        side = None if stacked or rng.random() < 0.4 else int(rng.integers(4))
        return MeldSpec("kong", [code] * 4, shape="stacked" if stacked else "row", sideways=side)
    r = rng.random()
    if r < 0.4:
        return MeldSpec("concealed_kong", [code] * 4, down=[0, 3])
    if r < 0.7:
        return MeldSpec("concealed_kong", [code] * 4, down=[0, 1, 2, 3])
    return MeldSpec("concealed_kong", [code] * 4, shape="stacked", down=[0, 1, 2])


def _meld_from_what_is_left(kind: str, pool: _Pool, rng: np.random.Generator) -> MeldSpec:
    """The meld of `kind` from any face the pool still holds, when the hand's suits cannot give one
    (scene seed 30, stop 51: a chi in 饼 alone with every 3p, 4p and 7p gone). Only reached where
    the random draws failed, so every scene that drew its melds before is drawn the same."""
    if kind == "chi":
        runs = [
            [f"{start + i}{suit}" for i in range(3)]
            for suit in SUITS
            for start in range(1, 8)
            if all(pool.left[f"{start + i}{suit}"] > 0 for i in range(3))
        ]
        if runs:
            return _chi(runs[int(rng.integers(len(runs)))], pool, rng)
    else:
        n = 3 if kind == "pong" else 4
        codes = [code for code, left in pool.left.items() if left >= n]
        if codes:
            code = codes[int(rng.integers(len(codes)))]
            pool.take(code, n)
            return _same_faces(kind, code, rng)
    raise RuntimeError(f"could not draw a {kind}: the pool holds no such meld")


def random_hand(rng: np.random.Generator) -> HandSpec:
    """A winning-hand-like set of tiles with 0–4 melds, a winning tile and maybe a 混 indicator."""
    pool = _Pool(rng)
    all_suits = [*SUITS, "z"]
    # hands lean on two or three suits, like real ones
    k = int(rng.integers(2, 5))
    suits = sorted(rng.choice(all_suits, size=k, replace=False).tolist(), key=all_suits.index)
    n_melds = int(rng.choice(5, p=[0.15, 0.3, 0.3, 0.18, 0.07]))
    melds = []
    for _ in range(n_melds):
        kind = MELD_KINDS[int(rng.choice(4, p=[0.42, 0.3, 0.14, 0.14]))]
        melds.append(_meld(kind, pool, rng, suits))
    n_stand = 13 - 3 * n_melds
    standing: list[str] = []
    while len(standing) < n_stand:
        code = pool.random(suits)
        standing.append(code)
        # pairs and triples are common in a winning hand
        if len(standing) < n_stand and rng.random() < 0.35 and pool.take(code):
            standing.append(code)
    winning = pool.random(suits)
    suit_order = [s for s in SUITS]
    if rng.random() < 0.3:
        rng.shuffle(suit_order)
    if rng.random() < 0.88:
        standing.sort(key=_sort_key(suit_order))
    winning_apart = rng.random() < 0.6
    if not winning_apart:
        if rng.random() < 0.7:
            standing.append(winning)
        else:  # already sorted in
            standing.insert(int(rng.integers(len(standing) + 1)), winning)
    indicator = pool.random(all_suits) if rng.random() < 0.5 else None
    return HandSpec(standing, melds, winning, winning_apart, indicator)
