"""The hand in progress as one object: its photo and tiles, the players' inputs, and what they score.

Why this module exists: a hand used to be dozens of loose session keys and widget values. Inputs of one
hand leaked into the next (a loser's 碰中 from hand 3 stayed in the browser's text field and gave
West 大哥大 in hand 4), a reload lost the hand, and a forgotten winner scored as 东家 自摸. Here a
hand is one `HandSession`: every user action is one method (a command), every per-hand input lives
in it and nowhere else, `new_hand` / `start_photo` replace *all* of them at once, and `evaluate()`
is the one place that decides whether the hand can be scored and what it pays. It is plain Python,
so every command is unit-tested without Streamlit; the page only draws it and calls commands, and
`page.hand_sync` keeps it on the server so a reload or another tab finds the same hand.

Nothing is guessed for the players: the winner, how he won (and from whom) and the 混 indicator
start unset, and the hand is not scored until they are chosen; `evaluate().missing` lists them.
The rule set and its options are the table's house rules, so they survive from hand to hand.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import rules
from page import hand_checks as check
from page.box import ORIGINS, Box, player_box
from page.explain import Payment, explain_error, payments
from page.hand_checks import FLAGS, WIN_BY, HandProblem
from page.keyboard import next_to_check, strip_order
from page.names import seat_words
from page.photo_state import Photo, box_right_of, typed_hand
from page.preset_view import discarded_hun_counts, extra_inputs, win_flags
from page.quick_entry import format_melds, parse_melds
from page.roles import default_winning, meld_kind, role_beside, winner_tiles_from_boxes
from page.situation import CountCheck, Situation, WinnerTiles, build_hand, count_check
from page.waiting import waiting_words
from page.words import Words, no_bidi
from rules import tiles as T
from rules.hand import SEATS
from rules.names import KIND_ZH
from rules.presets import PRESETS
from rules.result import ScoreResult

__all__ = ["FLAGS", "KINDS", "WIN_BY", "CommandError", "HandSession", "Outcome", "RecordPlan"]

KINDS = check.MELD_KINDS

DEFAULT_PRESET = "liaoyang"
STATE_VERSION = 1

#: A command the hand cannot take (a seat that does not exist, a tile index out of range), in words:
#: the same refusal a stored hand gets for a field it cannot hold (`page.hand_checks`).
CommandError = HandProblem


class NewerHand(HandProblem):
    """A stored hand written by a newer version of the app: not read, never overwritten unseen."""

    def __init__(self, version: int) -> None:
        super().__init__(
            Words(
                f"它是更新版本的程序存的（第 {version} 版）",
                f"it was stored by a newer version of the app (version {version})",
            )
        )


@dataclass
class HandInputs:
    """What the players say about the hand that is not on the winner's tiles. None = not chosen."""

    winner: str | None = None
    win_by: str | None = None  # self_draw | discard | robbed_kong
    discarder: str | None = None  # the discarder, or the robbed player
    indicator: str | None = None
    dealer: str = "E"
    flags: dict[str, bool] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)  # bao_tile, gun_tile, room_multiplier, changmao
    loser_melds: dict[str, str] = field(default_factory=dict)  # seat -> text like 碰7p 吃345m


@dataclass(frozen=True)
class Outcome:
    """Everything the page shows about the hand now: counts, what is missing, what is wrong, the score."""

    tiles: WinnerTiles
    count: CountCheck
    missing: tuple[Words, ...] = ()
    problems: tuple[Words, ...] = ()
    waits: Words | None = None
    hand_json: dict | None = None  # the hand as rules.score reads it (hand-json.md)
    result: ScoreResult | None = None
    payments: tuple[Payment, ...] = ()
    meld_problems: tuple[Words, ...] = ()  # the losers' meld texts that cannot be read (also in problems)

    @property
    def scored(self) -> bool:
        """A valid win with its payments: the only state that may be recorded."""
        return self.result is not None and self.result.valid

    @property
    def blocked(self) -> Words | None:
        """One sentence saying why there is no score yet (None when there is one or it cannot win)."""
        if self.missing:
            return Words(
                "还不能算：请选" + "、".join(m.zh for m in self.missing),
                "Not scored yet — please choose " + ", ".join(m.en for m in self.missing),
            )
        return None


@dataclass(frozen=True)
class RecordPlan:
    """What pressing 记入记分本 would do: record anew, replace hand `replaces`, or nothing (why)."""

    allowed: bool
    why_not: Words | None = None
    replaces: int | None = None  # this photo is already hand n of the evening, with another reading
    replaces_json: dict | None = None  # hand n as the book holds it (shown as what changes)
    recorded_as: int | None = None  # this very hand is already hand n: nothing to do


class HandSession:
    """One hand in progress. Methods named like the player's actions are the commands."""

    def __init__(self, preset: str = DEFAULT_PRESET, options: Mapping[str, object] | None = None) -> None:
        self.preset = preset if preset in PRESETS else DEFAULT_PRESET
        self.options: dict[str, object] = dict(options or {})
        self.id = uuid.uuid4().hex
        self.photo = Photo(key="none", name="")
        self.photo_data: bytes | None = None  # the uploaded bytes (kept on the server for a reload)
        self.inputs = HandInputs()
        self.sample = False
        self.kind_confirmed: set[str] = set()  # meld roles whose kind the player chose himself
        self.evening: int | None = None  # the scorebook evening the hand is played in (None: before any)
        self.changes = 0  # bumped by every command: the page saves the hand when it moved on

    # ------------------------------------------------------------------ whole hands

    def new_hand(self, dealer: str | None = None, changmao: int = 0, evening: int | None = None) -> None:
        """新的一局: every per-hand input goes (photo, tiles, fixes, winner, melds of every seat, flags,
        宝); the rule set and options stay; the dealer and the 长毛 count as the scorebook carries them,
        and the evening it is played in (it is never recorded in another)."""
        self.id = uuid.uuid4().hex
        self.evening = evening
        self.photo = Photo(key="none", name="")
        self.photo_data = None
        self.inputs = HandInputs(dealer=dealer if dealer in SEATS else "E")
        if changmao and any(x.key == "changmao" for x in extra_inputs(self.preset)):
            self.inputs.extras["changmao"] = int(changmao)
        self.sample = False
        self.kind_confirmed = set()
        self._changed()

    def start_photo(
        self,
        photo: Photo,
        data: bytes | None,
        dealer: str | None = None,
        changmao: int = 0,
        evening: int | None = None,
    ) -> None:
        """A new photo is a new hand: everything resets, then the photo's reading comes in."""
        self.new_hand(dealer, changmao, evening)
        self.photo = photo
        self.photo_data = data

    def show_sample(self, photo: Photo) -> None:
        """The bundled sample, scored as its situation says, never recordable."""
        self.new_hand()
        self.photo = photo
        self.sample = True
        s = photo.sample.get("situation", {}) if photo.sample else {}
        if s.get("preset") in PRESETS:
            self.preset = s["preset"]
        inp = self.inputs
        inp.winner, inp.win_by = s.get("winner"), s.get("win_by")
        inp.discarder, inp.indicator = s.get("discarder"), s.get("indicator")
        inp.dealer = s.get("dealer", "E")
        inp.flags = {k: bool(s[k]) for k in FLAGS if s.get(k)}
        inp.extras = {k: s[k] for k in ("bao_tile", "gun_tile") if s.get(k)}
        inp.loser_melds = {seat: str(t) for seat, t in (s.get("loser_melds") or {}).items()}
        self._changed()

    # ------------------------------------------------------------------ tiles

    def pick(self, i: int | None) -> None:
        """Open the tile keyboard on tile i (None closes it)."""
        if i is not None:
            self._box(i)
        self.photo.picked = i
        self._changed()

    def set_face(self, i: int, face: str) -> None:
        """A tile fixed on the keyboard; the keyboard moves on to the next tile still in doubt."""
        check.tile(face, allow_back=True)
        self._box(i).set_face(face)
        self._regroup(self._box(i).role)
        self.photo.picked = next_to_check(self.photo.boxes, i)
        self._changed()

    def set_role(self, i: int, role: str) -> None:
        """Where tile i belongs. Building a meld steps on to the next tile, and the meld's kind is
        guessed again from its tiles (unless the player chose the kind)."""
        check.role(role)
        box = self._box(i)
        order = strip_order(self.photo.boxes)
        before, box.role = box.role, role
        for r in {before, role}:
            self._regroup(r)
        if self.photo.winning == i and role != "hand":
            self.photo.winning = default_winning(self.photo.boxes)
        if role.startswith("meld"):  # the tile after it, as the strip showed them, not yet in a meld
            later = [j for j in order[order.index(i) + 1 :] if self.photo.boxes[j].role in ("hand", "other")]
            self.photo.picked = later[0] if later else None
        self._changed()

    def set_winning(self, i: int) -> None:
        if self._box(i).role != "hand":
            raise CommandError(
                Words("胡的那张必须是立着的手牌", "the winning tile must be one of the standing tiles")
            )
        self.photo.winning = i
        self._changed()

    def add_tile(self, face: str, role: str = "hand", beside: int | None = None, won: bool = False) -> None:
        """A tile the reader missed, placed right of tile `beside` when given."""
        check.tile(face, allow_back=True)
        check.role(role)
        xyxy = None
        if beside is not None and self._box(beside).xyxy:
            xyxy = box_right_of(self._box(beside).xyxy, self.photo.size)  # type: ignore[arg-type]
        self.photo.boxes.append(player_box(face, role, "added", xyxy))
        if won and role == "hand":
            self.photo.winning = len(self.photo.boxes) - 1
        self._regroup(role)
        self._changed()

    def take_maybe(self, i: int) -> None:
        """A tile the reader doubted (Photo.maybe), taken as the player's: it joins the tiles where
        the nearest of them lies (role_beside), with the reader's face and box (tap it to fix the
        face). Taken once: asked again (another phone, a double tap), nothing more happens."""
        offered = self._maybe(i)
        if offered.fixed:
            return
        offered.fixed = True
        role = role_beside(self.photo.boxes, offered.xyxy)
        self.photo.boxes.append(replace(offered, origin="added", role=role, fixed=True, unsure=False))
        self._regroup(role)
        self._changed()

    def drop_maybe(self, i: int | None = None) -> None:
        """Suggestion i is no tile (None: none of those still open is): not offered again."""
        for j in [i] if i is not None else self.photo.open_maybe():
            self._maybe(j).fixed = True  # type: ignore[arg-type]
        self._changed()

    def type_hand(self, concealed: str, winning: str, melds: str) -> None:
        """The whole hand typed as text; raises page.quick_entry.EntryError with the player's words."""
        boxes, win, kinds = typed_hand(concealed, winning, melds)
        self.photo.boxes = boxes
        self.photo.maybe = []
        self.photo.winning = win
        self.photo.meld_kinds = dict(kinds)
        self.photo.kong_faces = {}
        self.photo.doubts = []
        self.photo.picked = None
        self.photo.rev += 1
        self.kind_confirmed = set(kinds)
        self._changed()

    def set_meld_kind(self, role: str, kind: str | None) -> None:
        """The player's kind for a meld; None gives the choice back to the tiles' own shape."""
        if kind is None:
            self.photo.meld_kinds.pop(role, None)
            self.kind_confirmed.discard(role)
            self._changed()
            return
        check.meld_role(role)
        check.meld_kind(kind)
        self.photo.meld_kinds[role] = kind
        self.kind_confirmed.add(role)
        self._changed()

    def set_kong_face(self, role: str, face: str) -> None:
        """The tile of a 暗杠 lying all face down."""
        check.meld_role(role)
        check.tile(face)
        self.photo.kong_faces[role] = face
        self._changed()

    def _box(self, i: int) -> Box:
        return self.photo.boxes[check.index(i, len(self.photo.boxes), allow_none=False)]  # type: ignore[index]

    def _maybe(self, i: int) -> Box:
        return self.photo.maybe[check.index(i, len(self.photo.maybe), allow_none=False)]  # type: ignore[index]

    def _regroup(self, role: str) -> None:
        """A meld whose tiles changed: forget the reader's guess of its kind (the faces decide again)."""
        if role.startswith("meld") and role not in self.kind_confirmed:
            self.photo.meld_kinds.pop(role, None)

    # ------------------------------------------------------------------ situation

    def set_winner(self, seat: str | None) -> None:
        self._seat(seat, allow_none=True)
        self.inputs.winner = seat
        if seat is not None and self.inputs.discarder == seat:
            self.inputs.discarder = None
        self.inputs.loser_melds.pop(seat or "", None)  # the winner's melds are his tiles, not text
        self._changed()

    def set_win_by(self, how: str | None) -> None:
        check.win_by(how)
        self.inputs.win_by = how
        if how == "self_draw":
            self.inputs.discarder = None
        self._changed()

    def set_discarder(self, seat: str | None) -> None:
        self._seat(seat, allow_none=True)
        if seat is not None and seat == self.inputs.winner:
            raise CommandError(Words("赢家不能点自己的炮", "the winner cannot have fed his own win"))
        self.inputs.discarder = seat
        self._changed()

    def set_indicator(self, tile: str | None) -> None:
        check.tile(tile, allow_none=True)
        self.inputs.indicator = tile
        self._changed()

    def set_dealer(self, seat: str) -> None:
        self._seat(seat)
        self.inputs.dealer = seat
        self._changed()

    def set_flag(self, key: str, on: bool) -> None:
        check.flag(key, bool(on))
        if on:
            self.inputs.flags[key] = True
        else:
            self.inputs.flags.pop(key, None)
        self._changed()

    def set_extra(self, key: str, value: object) -> None:
        """宝 / 枪 tile, room multiplier, 长毛: the preset's extra inputs (None clears one)."""
        if value is None:
            check.extra_input(self.preset, key)
            self.inputs.extras.pop(key, None)
        else:
            k, v = check.extra(self.preset, key, value)
            self.inputs.extras[k] = v
        self._changed()

    def set_loser_melds(self, seat: str, text: str) -> None:
        """A loser's open melds as text (碰7p 吃345m 明杠9m); empty = closed (闭门)."""
        self._seat(seat)
        text = no_bidi(check.text(text, "melds") or "")
        if text.strip():
            self.inputs.loser_melds[seat] = text
        else:
            self.inputs.loser_melds.pop(seat, None)
        self._changed()

    def set_loser_meld_face(self, seat: str, k: int, j: int, face: str) -> None:
        """A tile of a loser's meld fixed on the tile keyboard: a 碰/杠 is that face throughout, a
        吃 becomes the run through that face with the tapped tile in its place."""
        self._seat(seat)
        melds = self._loser_melds_of(seat)
        check.index(k, len(melds), allow_none=False)
        kind, tiles = melds[k]
        check.index(j, len(tiles), allow_none=False)
        check.tile(face)
        if kind == "chi":
            t = T.parse_code(face)
            first = t - j if t is not None and T.is_suited(t) else None
            if first is None or not (T.is_suited(first) and T.rank(first) <= 7 and T.rank(t) - j >= 1):
                raise CommandError(
                    Words(
                        "吃是同一门里连着的三张：这张放不进去",
                        "a chow is three in a row of one suit: this tile does not fit",
                    )
                )
            tiles = [T.code(first + d) for d in range(3)]
        else:
            tiles = [face] * len(tiles)
        melds[k] = (kind, tiles)
        self.set_loser_melds(seat, format_melds(melds))

    def set_loser_meld_kind(self, seat: str, k: int, kind: str) -> None:
        """A loser's meld is another kind (碰 ↔ 明杠 ↔ 暗杠, or 吃 from its first tile)."""
        self._seat(seat)
        melds = self._loser_melds_of(seat)
        check.index(k, len(melds), allow_none=False)
        check.meld_kind(kind)
        # raises EntryError in words when the kind does not fit (a 吃 of an honour)
        melds[k] = parse_melds(f"{KIND_ZH[kind]}{melds[k][1][0]}")[0]
        self.set_loser_melds(seat, format_melds(melds))

    def drop_loser_meld(self, seat: str, k: int) -> None:
        """A meld read from the photo that is not one of his (a tile of the next seat's, a discard)."""
        self._seat(seat)
        melds = self._loser_melds_of(seat)
        check.index(k, len(melds), allow_none=False)
        self.set_loser_melds(seat, format_melds(melds[:k] + melds[k + 1 :]))

    def _loser_melds_of(self, seat: str) -> list[tuple[str, list[str]]]:
        return parse_melds(self.inputs.loser_melds.get(seat, ""))

    def set_preset(self, preset: str) -> None:
        """The table's rule set (kept for the next hands); inputs it does not have are dropped."""
        check.preset(preset)
        self.preset = preset
        self.options = {}
        keep = {x.key for x in extra_inputs(preset)}
        self.inputs.extras = {k: v for k, v in self.inputs.extras.items() if k in keep}
        self._changed()

    def set_option(self, name: str, value: object) -> None:
        check.option(self.preset, name, value)
        self.options[name] = value
        self._changed()

    @staticmethod
    def _seat(seat: str | None, allow_none: bool = False) -> None:
        check.seat(seat, allow_none)

    def _changed(self) -> None:
        self.changes += 1

    # ------------------------------------------------------------------ reading it

    def flags_shown(self) -> tuple[str, ...]:
        """The yes/no inputs this rule set has (win flags, and 打过混 where it matters)."""
        out = [k for k in FLAGS if k in win_flags(self.preset)]
        if discarded_hun_counts(self.preset):
            out.append("discarded_hun")
        return tuple(out)

    def tiles(self) -> WinnerTiles:
        """The winner's tiles as the boxes say now. A hand one tile short has no 胡 tile: the tile
        he won on is not in the photo (the page then says what the hand waits on)."""
        photo = self.photo
        win = photo.winning
        if win is None or not (0 <= win < len(photo.boxes) and photo.boxes[win].role == "hand"):
            win = default_winning(photo.boxes)
        tiles = winner_tiles_from_boxes(photo.boxes, win, photo.meld_kinds, photo.kong_faces)
        count = count_check(tiles)
        if count.got < count.expected:
            tiles.winning = None
        return tiles

    def meld_kind_of(self, role: str) -> str:
        return meld_kind([b.cls for b in self.photo.boxes if b.role == role], self.photo.meld_kinds.get(role))

    def missing(self, tiles: WinnerTiles | None = None) -> list[Words]:
        """The inputs the players have not chosen yet, in the order the page asks for them."""
        inp = self.inputs
        out = []
        if inp.winner is None:
            out.append(Words("谁胡了", "who won"))
        if inp.win_by is None:
            out.append(Words("怎么胡的（自摸还是点炮）", "how (self-draw or a discard)"))
        elif inp.win_by != "self_draw" and inp.discarder is None:
            out.append(
                Words("谁点的炮", "who discarded")
                if inp.win_by == "discard"
                else Words("抢的谁的杠", "whose kong was robbed")
            )
        if inp.indicator is None:
            out.append(Words("混指示牌", "the wild-tile indicator (混)"))
        if tiles is not None and tiles.winning is None and tiles.concealed:
            out.append(Words("胡的是哪张", "the tile won on"))
        return out

    def loser_melds(self) -> tuple[dict[str, list[tuple[str, list[str]]]], list[Words]]:
        """Each loser's melds as read from the text, and the texts that cannot be read."""
        melds: dict[str, list[tuple[str, list[str]]]] = {}
        problems: list[Words] = []
        for seat, text in sorted(self.inputs.loser_melds.items()):
            if seat == self.inputs.winner:
                continue
            try:
                melds[seat] = parse_melds(text)
            except ValueError as exc:
                w = getattr(exc, "words", Words(str(exc), str(exc)))
                s = seat_words(seat)
                problems.append(Words(f"{s.zh}的副露：{w.zh}", f"{s.en}'s melds: {w.en}"))
        return melds, problems

    def situation(self, melds: dict[str, list[tuple[str, list[str]]]] | None = None) -> Situation:
        """The engine-facing situation; only meaningful once `missing()` is empty. `melds`: the
        losers' melds already read by `loser_melds()` (read here when not given)."""
        inp = self.inputs
        if melds is None:
            melds, _ = self.loser_melds()
        sit = Situation(
            preset=self.preset,
            options=dict(self.options),
            indicator=inp.indicator,
            dealer=inp.dealer,
            winner=inp.winner or "E",
            win_by=inp.win_by or "self_draw",
            discarder=inp.discarder if inp.win_by != "self_draw" else None,
            loser_melds=melds,
        )
        for k in self.flags_shown():
            setattr(sit, k, bool(inp.flags.get(k)))
        for x in extra_inputs(self.preset):
            if x.key in inp.extras:
                setattr(sit, x.key, inp.extras[x.key])
            elif x.kind == "int":
                setattr(sit, x.key, x.default if x.default is not None else x.minimum)
        return sit

    def evaluate(self, names: Mapping[str, str] | None = None) -> Outcome:
        """The one judgement of the hand: tile count, missing inputs, the engine's problems, the score."""
        tiles = self.tiles()
        count = count_check(tiles)
        missing = tuple(self.missing(tiles))
        melds, bad = self.loser_melds()
        meld_problems = tuple(bad)
        if not count.ok:
            short = count.got == count.expected - 1
            waits = self._waits(tiles) if short else None
            hint = Words("还不能算：" + count.hint.zh, "Not scored yet — " + count.hint.en)
            if count.got < count.expected and self.photo.open_maybe():
                hint = hint + Words("看看下面“可能漏认的牌”。", " See “maybe missed” below.")
            return Outcome(tiles, count, missing, (hint, *meld_problems), waits, meld_problems=meld_problems)
        if meld_problems or missing:
            return Outcome(tiles, count, missing, meld_problems, meld_problems=meld_problems)
        hand = build_hand(tiles, self.situation(melds))
        problems = engine_problems(hand)
        if problems:
            return Outcome(tiles, count, (), tuple(problems), hand_json=hand)
        try:
            result = rules.score(hand)
        except rules.HandError as exc:
            return Outcome(tiles, count, (), (error_words(exc),), hand_json=hand)
        pays = (
            tuple(payments(result, dealer=self.inputs.dealer, names=dict(names or {})))
            if result.valid
            else ()
        )
        return Outcome(tiles, count, (), (), hand_json=hand, result=result, payments=pays)

    def _waits(self, tiles: WinnerTiles) -> Words | None:
        """What a hand one tile short waits on (and why none), once the 混 indicator is known."""
        if self.inputs.indicator is None:
            return None
        return waiting_words(tiles, self.situation())

    # ------------------------------------------------------------------ the scorebook

    @property
    def record_key(self) -> str:
        """What ties a recorded hand to this one: the photo's hash, or the hand's own id when typed."""
        return self.photo.key if self.photo_data is not None or self.photo.has_picture else f"hand:{self.id}"

    def record_plan(
        self, outcome: Outcome, recorded: Any | None, evening_id: int | None = None
    ) -> RecordPlan:
        """Whether 记入记分本 is offered. `recorded` is the scorebook's record of this photo in the
        evening `evening_id` (or None); a hand started in another evening is never offered there."""
        if self.sample:
            return RecordPlan(False, Words("示例牌局不能记入记分本。", "The sample hand cannot be recorded."))
        if not outcome.scored:
            return RecordPlan(False)
        if self.evening is not None and evening_id is not None and self.evening != evening_id:
            return RecordPlan(
                False,
                Words(
                    "这一局是在另一晚开始的，不能记进今晚；点“新的一局”再拍。",
                    "This hand was started in another evening and cannot go into this one; "
                    "tap “New hand” and take the photo again.",
                ),
            )
        if recorded is not None:
            if recorded.hand_json == outcome.hand_json:
                return RecordPlan(False, recorded_as=recorded.number)
            return RecordPlan(True, replaces=recorded.number, replaces_json=recorded.hand_json)
        return RecordPlan(True)

    def record(
        self,
        book: Any,
        outcome: Outcome,
        evening_id: int,
        drawn: RecordPlan | None = None,
        then: Any = None,
    ) -> Any:
        """Record (or replace) this hand in the evening; returns the scorebook's record.

        `drawn`: the plan the button was drawn with. When the book now says something else (the
        photo was recorded or replaced on another phone since), nothing is written and the player
        is told (`ChangedMeanwhile`): a 记入记分本 never turns into a replacement unseen. `then`
        runs inside the book's transaction (`page.recording` checks the hand's revision there)."""
        from page.scorebook import ChangedMeanwhile

        recorded = book.find_photo(self.record_key, evening_id)
        plan = self.record_plan(outcome, recorded, evening_id)
        if plan.recorded_as is not None:
            return recorded
        if not plan.allowed:
            raise CommandError(plan.why_not or Words("还不能记：这手牌还没算出分", "Nothing to record yet"))
        if drawn is not None and (drawn.replaces, drawn.replaces_json) != (plan.replaces, plan.replaces_json):
            raise ChangedMeanwhile(
                Words(
                    "记分本刚在另一部手机上变了，这里没记；请看一眼再点。",
                    "The scorebook just changed on another phone; nothing was recorded here — have a look first.",
                )
            )
        result = outcome.result.to_dict()  # type: ignore[union-attr]
        if plan.replaces is not None:
            return book.replace_hand(
                plan.replaces,
                outcome.hand_json,
                result,
                photo_hash=self.record_key,
                evening_id=evening_id,
                expect=plan.replaces_json,
                then=then,
            )
        return book.record_hand(
            outcome.hand_json, result, photo_hash=self.record_key, evening_id=evening_id, then=then
        )

    # ------------------------------------------------------------------ kept on the server

    def to_state(self) -> dict:
        """Everything but the image itself, as JSON-able data (the photo bytes travel beside it)."""
        p = self.photo
        return {
            "version": STATE_VERSION,
            "id": self.id,
            "preset": self.preset,
            "options": self.options,
            "sample": self.sample,
            "inputs": asdict(self.inputs),
            "kind_confirmed": sorted(self.kind_confirmed),
            "evening": self.evening,
            "photo_hash": p.key if self.photo_data is not None else None,
            "photo": {
                "key": p.key,
                "name": p.name,
                "boxes": [asdict(b) for b in p.boxes],
                "maybe": [asdict(b) for b in p.maybe],
                "winning": p.winning,
                "meld_kinds": p.meld_kinds,
                "kong_faces": p.kong_faces,
                "doubts": p.doubts,
                "notes": [list(n) for n in p.notes],
                "error": list(p.error) if p.error else None,
                "seconds": p.seconds,
                "model_version": p.model_version,
                "rev": p.rev,
                "picked": p.picked,
            },
        }

    @classmethod
    def from_state(cls, state: Mapping, photo_data: bytes | None, decode: Any = None) -> HandSession:
        """The hand as `to_state` left it; `decode(bytes) -> rgb` gives the image back.

        Every field goes through the checks the commands use (`page.hand_checks`); a state that
        fails any of them, or was written by a newer version, raises `HandProblem` in words and
        nothing of it is used (the page keeps it aside and starts a new hand)."""
        state = check.mapping(state, "hand")
        version = state.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > STATE_VERSION:
            raise NewerHand(version)
        if version != STATE_VERSION:
            raise HandProblem(Words(f"存法认不得（{version!r}）", f"unknown state version {version!r}"))
        _only(state, _STATE_KEYS, "这一局")
        s = cls(check.preset(state.get("preset")))
        for name, value in check.mapping(state.get("options") or {}, "options").items():
            s.set_option(name, value)
        s.id = _hand_id(state.get("id"))
        s.sample = _yes_no(state.get("sample", False), "sample")
        ev = state.get("evening")
        s.evening = None if ev is None else check.whole(ev, "evening", 1)
        s.inputs = _inputs(s.preset, state.get("inputs"))
        s.kind_confirmed = {
            check.meld_role(r) for r in check.sequence(state.get("kind_confirmed") or [], "kind_confirmed")
        }
        s.photo = _photo(state.get("photo"))
        if photo_data is not None:
            s.photo_data = photo_data
            if decode is not None:
                s.photo.rgb = decode(photo_data)
        s.changes = 0
        return s


_STATE_KEYS = {
    "version",
    "id",
    "preset",
    "options",
    "sample",
    "evening",
    "inputs",
    "kind_confirmed",
    "photo_hash",
    "photo",
}
_PHOTO_KEYS = {
    "key", "name", "boxes", "winning", "meld_kinds", "kong_faces", "doubts", "notes", "error", "seconds",
    "model_version", "rev", "picked", "maybe",
}  # fmt: skip
_BOX_KEYS = {"cls", "origin", "xyxy", "model_cls", "conf", "alternatives", "role", "fixed", "unsure"}
_INPUT_KEYS = {"winner", "win_by", "discarder", "indicator", "dealer", "flags", "extras", "loser_melds"}


def _only(d: Mapping, keys: set[str], what: str) -> None:
    """A field this version does not know is a state it cannot be sure to read right."""
    unknown = sorted(set(d) - keys)
    if unknown:
        raise HandProblem(Words(f"{what}里有认不得的字段 {unknown}", f"unknown fields {unknown} in {what}"))


def _yes_no(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise HandProblem(Words(f"{what} 只能是是或否：{value!r}", f"{what} must be yes or no: {value!r}"))
    return value


def _hand_id(value: object) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= 64 or not value.isalnum():
        raise HandProblem(Words(f"这一局的编号坏了：{value!r}", f"the hand's id is damaged: {value!r}"))
    return value


def _inputs(preset: str, raw: object) -> HandInputs:
    d = check.mapping(raw, "inputs")
    _only(d, _INPUT_KEYS, "inputs")
    winner = check.seat(d.get("winner"), allow_none=True)
    discarder = check.seat(d.get("discarder"), allow_none=True)
    if discarder is not None and discarder == winner:
        raise HandProblem(Words("赢家不能点自己的炮", "the winner cannot have fed his own win"))
    flags = dict(check.flag(k, v) for k, v in check.mapping(d.get("flags") or {}, "flags").items())
    extras = dict(
        check.extra(preset, k, v) for k, v in check.mapping(d.get("extras") or {}, "extras").items()
    )
    melds = {
        check.seat(k): no_bidi(check.text(v, "melds"))  # type: ignore[arg-type]
        for k, v in check.mapping(d.get("loser_melds") or {}, "loser_melds").items()
    }
    return HandInputs(
        winner=winner,
        win_by=check.win_by(d.get("win_by")),
        discarder=discarder,
        indicator=check.tile(d.get("indicator"), allow_none=True),
        dealer=check.seat(d.get("dealer", "E")),  # type: ignore[arg-type]
        flags={k: v for k, v in flags.items() if v},
        extras=extras,
        loser_melds=melds,
    )


def _photo(raw: object) -> Photo:
    p = check.mapping(raw, "photo")
    _only(p, _PHOTO_KEYS, "photo")
    photo = Photo(
        key=check.text(p.get("key"), "photo key", limit=100),
        name=no_bidi(check.text(p.get("name", ""), "photo name", limit=300)),
    )  # type: ignore[arg-type]
    photo.boxes = [_box(b) for b in check.sequence(p.get("boxes") or [], "boxes")]
    photo.maybe = [_box(b) for b in check.sequence(p.get("maybe") or [], "maybe")]
    n = len(photo.boxes)
    photo.winning = check.index(p.get("winning"), n)
    photo.picked = check.index(p.get("picked"), n)
    photo.rev = check.whole(p.get("rev", 0), "photo rev")
    photo.meld_kinds = {
        check.meld_role(k): check.meld_kind(v)
        for k, v in check.mapping(p.get("meld_kinds") or {}, "meld_kinds").items()
    }
    photo.kong_faces = {
        check.meld_role(k): check.tile(v)
        for k, v in check.mapping(p.get("kong_faces") or {}, "kong_faces").items()  # type: ignore[misc]
    }
    photo.doubts = [
        check.text(d, "doubt", limit=100) for d in check.sequence(p.get("doubts") or [], "doubts")
    ]  # type: ignore[misc]
    photo.notes = [check.words_pair(x, "note") for x in check.sequence(p.get("notes") or [], "notes", 50)]
    photo.error = None if p.get("error") is None else check.words_pair(p.get("error"), "error")
    photo.seconds = check.number(p.get("seconds"), "seconds")
    photo.model_version = check.text(p.get("model_version"), "model version", allow_none=True, limit=200)
    return photo


def _box(raw: object) -> Box:
    d = check.mapping(raw, "box")
    _only(d, _BOX_KEYS, "box")
    xyxy = d.get("xyxy")
    if xyxy is not None:
        corners = check.sequence(xyxy, "box corners", 4)
        if len(corners) != 4:
            raise HandProblem(Words("框的位置坏了", "a box's corners are damaged"))
        xyxy = [check.number(v, "box corner", allow_none=False, low=-1e6, high=1e6) for v in corners]
    origin = d.get("origin", "model")
    if origin not in ORIGINS:
        raise HandProblem(Words(f"框的来历认不得：{origin!r}", f"unknown box origin {origin!r}"))
    alternatives = []
    for a in check.sequence(d.get("alternatives") or [], "alternatives", 40):
        pair = check.sequence(a, "alternative", 2)
        if len(pair) != 2:
            raise HandProblem(Words("备选的牌坏了", "an alternative reading is damaged"))
        alternatives.append(
            (check.box_class(pair[0]), check.number(pair[1], "alternative", allow_none=False, high=1.0))
        )
    model_cls = d.get("model_cls")
    return Box(
        cls=check.box_class(d.get("cls")),
        origin=str(origin),
        xyxy=xyxy,
        model_cls=None if model_cls is None else check.box_class(model_cls),
        conf=check.number(d.get("conf", 1.0), "confidence", allow_none=False, high=1.0),  # type: ignore[arg-type]
        alternatives=alternatives,  # type: ignore[arg-type]
        role=check.role(d.get("role", "other")),
        fixed=_yes_no(d.get("fixed", False), "fixed"),
        unsure=_yes_no(d.get("unsure", False), "unsure"),
    )


def engine_problems(hand: dict) -> list[Words]:
    """Every problem the engine finds with the hand, in player words (the engine is the one judge)."""
    return [error_words(p.error()) for p in rules.check(hand)]


def error_words(exc: rules.HandError) -> Words:
    e = explain_error(exc)
    return Words("还不能算：" + e.zh, "Not scored yet — " + e.en)
