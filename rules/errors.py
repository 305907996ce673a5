"""The one exception type for malformed input, its stable codes, and the player words for each code.

Why codes: the CLI prints `error: FIELD: message` for people and scripts, but the page must say in a
player's words what is wrong, in Chinese or English, without parsing the engine's English message.
A `HandError` therefore carries `field` (the JSON path, e.g. `players.S.concealed[3]`), `message`
(the engine's precise sentence) and `code` (a stable name from `ERROR_WORDS`). The page combines
the words of the code with the place named by the field; the table below is the only place that
says, for people, what each kind of malformed input means.

`Problem` is the same triple as a value, for `rules.check`, which lists every problem of a hand at
once (a page shows them together; `missing` sets apart inputs not given yet). `REASON_WORDS`, the
words for why a well-formed hand cannot win, live here too: one module holds every player word the
engine gives about what is wrong with a hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from .hand import WIN_FLAGS
from .words import Words

#: Every code a `HandError` can carry, with its player words (one table; the page reads it).
ERROR_WORDS: dict[str, Words] = {
    "INPUT": Words("牌局数据有误", "the hand is malformed"),
    "JSON": Words("不是有效的牌局数据（JSON 格式错误）", "the hand is not valid JSON"),
    "EMPTY": Words("这一行是空的，没有牌局", "the line is empty: there is no hand on it"),
    "TOO_DEEP": Words("数据嵌套太深，不是牌局", "the data is nested far too deep to be a hand"),
    "TYPE": Words("某一项的类型不对（例如该填数字的地方填了 true）", "a value has the wrong type"),
    "MISSING": Words("缺少必填的一项", "a required part of the hand is missing"),
    "UNKNOWN_KEY": Words("有一项不认识（可能拼错了）", "an unknown key (a typo?)"),
    "VERSION": Words("数据版本不对（应为 1）", "unsupported hand-json version (expected 1)"),
    "PRESET": Words("不认识这个规则（辽阳、辽阳在线、鞍山）", "unknown rule set"),
    "OPTION": Words("这个规则没有这个选项", "the rule set has no such option"),
    "OPTION_VALUE": Words("规则选项的值不对", "a rule option has a value it does not accept"),
    "RANGE": Words("数字超出允许的范围", "a number is outside the allowed range"),
    "SEAT": Words("座位只能是东、南、西、北", "a seat must be E, S, W or N"),
    "TILE": Words("有一张牌认不出来", "a tile is not a mahjong tile"),
    "WIND": Words("这个规则不用风牌（东南西北）", "this rule set is played without winds"),
    "TILE_COUNT": Words("牌的张数不对", "the number of tiles is wrong"),
    "MELD": Words("副露不对（吃要三张连牌，碰/杠要相同的牌）", "a meld is not a valid 吃/碰/杠"),
    "HUN_IN_MELD": Words("混不能用来吃、碰、杠", "a 混 can never be part of a meld"),
    "COPIES": Words("同一种牌超过了四张（混指示牌那种最多三张）", "more copies of a tile than exist"),
    "HUN_CLAIMED": Words("打出的混不能被胡", "a discarded 混 cannot be won on"),
    "SELF_FEED": Words("胡牌的人不能点自己的炮", "the winner cannot feed his own win"),
    "SITUATION": Words("这种情况不可能发生（例如没有杠却选了杠上开）", "a situation that cannot happen"),
    "DUPLICATE_KEY": Words("同一项写了两次", "a key is given twice"),
    "TOO_LONG": Words("数据太长，不是一局牌", "the input is far too long to be a hand"),
}

#: Why a well-formed hand cannot win (`ScoreResult.reason`), in the same words as the errors: a short
#: Chinese name and an English explanation. The result's `message` is the two joined by ": ".
REASON_WORDS: dict[str, Words] = {
    "DISCARDED_HUN": Words("打过混", "the winner discarded a 混 earlier this hand, so he cannot win it"),
    "CLOSED_DISCARD_WIN": Words(
        "闭门不能点炮胡", "a closed hand (no 吃/碰/明杠) may only win by self-draw, except 七对"
    ),
    "SHOUBAYI_WITH_CHI": Words("手把一只能飘胡", "four melds are allowed only when none of them is a 吃"),
    "SHOUBAYI_NOT_ALLOWED": Words("鞍山不许手把一", "a hand with four melds and one tile left cannot win"),
    "NOT_A_WINNING_SHAPE": Words(
        "不成胡牌", "the tiles do not form 4 sets + 1 pair or 七对 (nor 十三幺 in 鞍山), even with 混"
    ),
    "MISSING_SUIT": Words(
        "缺门", "every suit (万, 饼, 条) must be present as a natural tile; a 混 never fills a suit"
    ),
    "NO_YAOJIU": Words(
        "没有幺九", "no natural 1, 9 or honour tile (a 混 counts only as a 1/9 inside a 顺子 in 辽阳)"
    ),
    "NO_SHUN": Words("没有顺子", "鞍山 needs at least one 顺子 (飘 is not allowed)"),
    "NO_KE": Words(
        "没有横", "the hand needs a 横 (triplet or 碰/杠), or a pair of 中/发/白 with a natural tile"
    ),
}

#: `ScoreResult.message` for each reason (hand-json.md "Output (hand that cannot win)").
REASON_MESSAGES: dict[str, str] = {k: f"{w.zh}: {w.en}" for k, w in REASON_WORDS.items()}


_WIN_INPUTS = {"tile": "winning_tile", "by": "win_by", "from": "discarder"}
_TOP_INPUTS = {"bao_tile": "bao", "gun_tile": "gun"}


def input_of(field: str) -> str:
    """The input a JSON path belongs to: `winner`, `indicator`, `discarder` (`win.from`),
    `winning_tile`, `win_by`, `flags.kong_replacement`…, `melds.E` / `concealed.S` /
    `discarded_hun.S` (any tile of them), `options`, `bao`, `gun`, `preset`, … and `hand` for the
    document as a whole. The JSON path stays in `field`; this is the name of the thing to fix."""
    path = field[len("hand.") :] if field.startswith("hand.") else field
    if not path or path == "hand":
        return "hand"
    if path.startswith('"'):  # a key quoted because it is long or odd: an unknown key of the hand
        return "hand"
    parts = path.replace("[", ".").split(".")
    head = parts[0]
    if head == "players" and len(parts) >= 2 and parts[1] in ("E", "S", "W", "N"):
        if len(parts) >= 3 and parts[2] in ("melds", "concealed", "discarded_hun"):
            return f"{parts[2]}.{parts[1]}"
        return f"players.{parts[1]}"
    if head == "win" and len(parts) >= 2:
        if parts[1] in WIN_FLAGS:
            return f"flags.{parts[1]}"
        return _WIN_INPUTS.get(parts[1], "win")
    return _TOP_INPUTS.get(head, head)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a hand's input, from `rules.check` (which lists them all).

    `field` is the JSON path as in `HandError` (`winner`, `win.from`, `players.E.melds[0].tiles`…),
    `code` a key of `ERROR_WORDS`, `message` the engine's precise sentence. `missing` tells an input
    not given yet (no winner, no indicator, no discarder: code `MISSING`) from one given wrong, so a
    page can ask for everything missing in one sentence and explain the rest one by one.
    """

    field: str
    message: str
    code: str = "INPUT"

    @property
    def missing(self) -> bool:
        return self.code == "MISSING"

    @property
    def input(self) -> str:
        """Which input of the hand this is about, at the grain a page asks for inputs (see `input_of`)."""
        return input_of(self.field)

    @property
    def zh(self) -> str:
        return ERROR_WORDS[self.code].zh

    @property
    def en(self) -> str:
        return ERROR_WORDS[self.code].en

    def error(self) -> HandError:
        """The same problem as the exception `rules.score` raises."""
        return HandError(self.field, self.message, self.code)

    def to_dict(self) -> dict[str, object]:
        return {
            "field": self.field,
            "code": self.code,
            "missing": self.missing,
            "input": self.input,
            "message": self.message,
            "zh": self.zh,
            "en": self.en,
        }

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class HandError(ValueError):
    """Malformed hand input: `field` names the JSON path, `code` is a key of `ERROR_WORDS`."""

    def __init__(self, field: str, message: str, code: str = "INPUT") -> None:
        if code not in ERROR_WORDS:
            raise KeyError(f"unknown HandError code {code!r}")
        self.field = field
        self.message = message
        self.code = code
        super().__init__(f"{field}: {message}" if field else message)

    @property
    def problem(self) -> Problem:
        return Problem(self.field, self.message, self.code)

    def words(self, lang: str = "zh") -> str:
        """The player words for this error's code (`lang` is "zh" or "en")."""
        return ERROR_WORDS[self.code].pick(lang)
