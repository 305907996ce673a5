"""Quick text entry of tiles and melds, as a player types them: `123m 456p 11s 中中`, `碰7p 吃345m 暗杠中`.

Why this module exists: with no model, or a photo the reader cannot cope with, the page lets a player
type the hand and the losers' melds. Reading that text is fiddly (Chinese and ASCII suits, runs of
digits, a 碰 named by one tile) and must say in plain words what it cannot read, so it is tested here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from page.words import Words
from rules import tiles as T
from rules.hand import KONG_KINDS
from rules.names import KIND_ZH, tile_name


class EntryError(ValueError):
    """Typed text that cannot be read; `words` says where, in Chinese and English."""

    def __init__(self, words: Words) -> None:
        super().__init__(words.en)
        self.words = words


_KIND_WORDS = {
    "吃": "chi",
    "chi": "chi",
    "chow": "chi",
    "碰": "pong",
    "pong": "pong",
    "pung": "pong",
    "杠": "kong",
    "明杠": "kong",
    "kong": "kong",
    "补杠": "added_kong",
    "added_kong": "added_kong",
    "暗杠": "concealed_kong",
    "concealed_kong": "concealed_kong",
}
_TILE_RUN = re.compile(r"([1-9]+)\s*([mpsMPS万萬饼筒条條索])|([ESWNCFP东南西北中发白東發])")
_SUIT_ALIAS = {"万": "m", "萬": "m", "饼": "p", "筒": "p", "条": "s", "條": "s", "索": "s"}


def parse_tiles(text: str) -> list[str]:
    """Tiles typed as a player writes them: `123m 456p 11s 中中`, `1m2m3m`, `东 南`.

    Raises EntryError (a ValueError) with a plain sentence naming the part it cannot read.
    """
    out: list[str] = []
    pos = 0
    s = text.strip()
    while pos < len(s):
        if s[pos] in " ,，;；、":
            pos += 1
            continue
        m = _TILE_RUN.match(s, pos)
        if not m:
            bad = s[pos : pos + 6]
            raise EntryError(
                Words(
                    f"看不懂“{bad}”（牌请写成 123m 55p 中 这样：m 万、p 饼、s 条）",
                    f"cannot read “{bad}” as tiles (write e.g. 123m 55p 中)",
                )
            )
        if m.group(1):
            suit = m.group(2).lower()
            suit = _SUIT_ALIAS.get(suit, suit)
            out += [f"{d}{suit}" for d in m.group(1)]
        else:
            ch = m.group(3)
            code = T.ALIASES.get(ch, ch)
            out.append(code)
        pos = m.end()
    return out


def parse_melds(text: str) -> list[tuple[str, list[str]]]:
    """Open melds typed quickly: `碰7p, 吃345m, 暗杠中, 补杠9m` (empty = no melds = closed).

    A 碰/杠 may name one tile (it is repeated); a 吃 may name its lowest tile (`吃3m` = 3m4m5m).
    Raises EntryError (a ValueError) with a plain sentence on anything it cannot read.
    """
    melds: list[tuple[str, list[str]]] = []
    words = sorted(_KIND_WORDS, key=len, reverse=True)
    s = text.strip()
    pos = 0
    while pos < len(s):
        if s[pos] in " ,，;；、":
            pos += 1
            continue
        kind = None
        for w in words:
            if s[pos : pos + len(w)].lower() == w:
                kind, pos = _KIND_WORDS[w], pos + len(w)
                break
        if kind is None:
            bad = s[pos : pos + 6]
            raise EntryError(
                Words(
                    f"每组副露以 吃、碰、明杠、补杠 或 暗杠 开头（“{bad}”处）",
                    f"each meld starts with chow, pong, kong, added_kong or concealed_kong (吃, 碰, 明杠, 补杠, 暗杠; at “{bad}”)",
                )
            )
        end = pos
        while (
            end < len(s)
            and not any(s[end:].lower().startswith(w) for w in words)
            and s[end] not in ",，;；、"
        ):
            end += 1
        chunk = s[pos:end]
        pos = end
        tiles = parse_tiles(chunk)
        label = KIND_ZH[kind]
        if not tiles:
            raise EntryError(Words(f"{label}：哪张牌？", f"{label}: which tile?"))
        want = 4 if kind in KONG_KINDS else 3
        if kind == "chi":
            if len(tiles) == 1:
                t = T.parse_code(tiles[0])
                if t is None or not T.is_suited(t) or T.rank(t) > 7:
                    raise EntryError(
                        Words(
                            f"吃 {chunk.strip()}：吃是同一门里连着的三张",
                            f"吃 {chunk.strip()}: a 吃 is three tiles in a row of one suit",
                        )
                    )
                tiles = [T.code(t), T.code(t + 1), T.code(t + 2)]
        elif len(tiles) == 1:
            tiles = tiles * want
        if len(tiles) != want:
            raise EntryError(
                Words(
                    f"{label} {chunk.strip()}：{label}是 {want} 张牌，不是 {len(tiles)} 张",
                    f"{label} {chunk.strip()}: a {label} has {want} tiles, not {len(tiles)}",
                )
            )
        melds.append((kind, tiles))
    return melds


def format_melds(melds: Iterable[tuple[str, list[str]]]) -> str:
    """The quick-entry text for melds (inverse of `parse_melds`), for prefilling inputs: honours as
    the players write them (碰白, not 碰P), suited tiles as typed (碰7p, 吃345m)."""
    parts = []
    for kind, tiles in melds:
        if kind == "chi":
            parts.append(f"吃{''.join(t[0] for t in tiles)}{tiles[0][1]}")
        else:
            first = tiles[0]
            parts.append(f"{KIND_ZH[kind]}{tile_name(first) if not first[0].isdigit() else first}")
    return " ".join(parts)
