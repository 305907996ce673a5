"""page.hand_session: one hand in progress, a command per user action, one evaluate(); no Streamlit."""

from __future__ import annotations

import pytest

import rules
from page.detector_loader import Detector
from page.hand_session import CommandError, HandSession
from page.photo_state import decode_photo, read_photo, sample_photo
from page.quick_entry import EntryError
from page.scorebook import Scorebook
from tests.fake_reader import HANDS, SAMPLE, fake_detect, marked_photo


def _Reader() -> Detector:  # noqa: N802 - stands where a reader class stood
    return Detector(fake_detect, "fake")


def _photo_hand(k: int = 0) -> HandSession:
    data = marked_photo(k)
    h = HandSession()
    h.start_photo(read_photo(data, f"hand{k}.png", _Reader()), data, dealer="E")
    return h


def _ready(h: HandSession, winner: str = "S") -> HandSession:
    h.set_winner(winner)
    h.set_win_by("self_draw")
    h.set_indicator("9m")
    return h


def test_a_new_photo_is_a_hand_with_nothing_chosen():
    h = _photo_hand()
    o = h.evaluate()
    assert [w.zh for w in o.missing] == ["谁胡了", "怎么胡的（自摸还是点炮）", "混指示牌"]
    assert o.blocked.zh == "还不能算：请选谁胡了、怎么胡的（自摸还是点炮）、混指示牌"
    assert o.result is None and not o.scored and o.count.ok


def test_choosing_the_inputs_scores_the_hand_as_the_engine_does():
    h = _ready(_photo_hand())
    o = h.evaluate()
    assert o.scored and o.missing == () and o.problems == ()
    assert (
        o.result.payments == rules.score(o.hand_json).payments == {"E": -200, "S": 600, "W": -200, "N": -200}
    )
    assert [p.seat for p in o.payments] == ["S", "E", "W", "N"]


def test_a_discard_needs_the_discarder_and_self_draw_drops_it():
    h = _ready(_photo_hand())
    h.set_win_by("discard")
    assert [w.en for w in h.evaluate().missing] == ["who discarded"]
    h.set_discarder("W")
    assert h.evaluate().hand_json["win"] == {"tile": "8s", "by": "discard", "from": "W"}
    with pytest.raises(CommandError):
        h.set_discarder("S")  # the winner cannot feed himself
    h.set_win_by("self_draw")
    assert h.inputs.discarder is None
    h.set_win_by("robbed_kong")
    assert [w.en for w in h.evaluate().missing] == ["whose kong was robbed"]


def test_every_engine_problem_is_listed_together():
    h = _ready(_photo_hand())
    h.set_win_by("discard")
    h.set_discarder("W")
    h.set_flag("kong_replacement", True)
    h.set_flag("first_draw", True)
    o = h.evaluate()
    assert not o.scored and len(o.problems) >= 2
    assert all(p.zh.startswith("还不能算：") for p in o.problems)


def test_new_hand_clears_every_input_but_keeps_the_house_rules():
    h = _ready(_photo_hand())
    h.set_preset("liaoyang-online")
    h.set_option("include_winds", False)
    h.set_loser_melds("W", "碰中")
    h.set_flag("last_tiles", True)
    h.set_extra("bao_tile", "5m")
    h.set_extra("room_multiplier", 4)
    old = h.id
    h.new_hand(dealer="N", changmao=2)
    assert h.id != old and h.photo.boxes == [] and h.photo_data is None
    assert (h.inputs.winner, h.inputs.win_by, h.inputs.indicator) == (None, None, None)
    assert h.inputs.loser_melds == {} and h.inputs.flags == {}
    assert h.inputs.extras == {"changmao": 2} and h.inputs.dealer == "N"
    assert h.preset == "liaoyang-online" and h.options == {"include_winds": False}


def test_changmao_only_where_the_preset_has_it():
    h = HandSession("liaoyang")
    h.new_hand(dealer="E", changmao=3)
    assert h.inputs.extras == {}
    with pytest.raises(CommandError):
        h.set_extra("changmao", 1)


def test_start_photo_replaces_the_hand():
    h = _ready(_photo_hand(0))
    h.set_loser_melds("N", "吃678m")
    data = marked_photo(1)
    h.start_photo(read_photo(data, "next.png", _Reader()), data, dealer="S")
    assert h.inputs.loser_melds == {} and h.inputs.winner is None and h.inputs.dealer == "S"
    assert [b.cls for b in h.photo.boxes] == list(HANDS[1])


def test_set_face_fixes_and_steps_to_the_next_doubt():
    data = (SAMPLE / "winning-hand.jpg").read_bytes()
    h = HandSession()
    h.start_photo(read_photo(data, "hand.jpg", _Reader()), data)
    assert h.photo.to_check() == [13] and h.photo.boxes[13].cls == "9s"  # the reader's misread
    h.pick(13)
    h.set_face(13, "8s")
    assert h.photo.boxes[13].cls == "8s" and h.photo.boxes[13].fixed and h.photo.picked is None
    with pytest.raises(CommandError):
        h.set_face(13, "10m")
    with pytest.raises(CommandError):
        h.set_face(99, "1m")


def test_set_role_builds_a_meld_step_by_step_and_reguesses_its_kind():
    h = _ready(_photo_hand(0))  # 2m 2m P P P 7p 7p 7p 3p 3p 3p 8s 8s 8s
    h.set_role(2, "meld1")
    assert h.photo.picked == 3  # the next tile of the strip
    h.set_role(3, "meld1")
    h.set_role(4, "meld1")
    assert h.meld_kind_of("meld1") == "pong" and h.evaluate().scored
    h.set_meld_kind("meld1", "kong")
    assert not h.evaluate().count.ok and "明杠是 4 张牌" in h.evaluate().problems[0].zh
    h.set_meld_kind("meld1", None)  # back to what the tiles show
    assert h.meld_kind_of("meld1") == "pong"
    h.set_role(4, "hand")
    assert h.meld_kind_of("meld1") == "pong"  # two tiles: still guessed from their faces
    with pytest.raises(CommandError):
        h.set_role(0, "nowhere")


def test_the_winning_tile_follows_the_roles():
    h = _ready(_photo_hand(0))
    h.set_winning(0)
    assert h.evaluate().hand_json["win"]["tile"] == "2m"
    h.set_role(0, "other")
    assert h.photo.winning != 0
    with pytest.raises(CommandError):
        h.set_winning(0)  # not a standing tile any more


def test_a_hand_one_tile_short_has_no_winning_tile_and_says_what_it_waits_on():
    h = _ready(_photo_hand(0))
    h.set_role(13, "delete")
    o = h.evaluate()
    assert o.tiles.winning is None and not o.count.ok
    assert o.waits is not None and o.waits.zh.startswith("听 ") and "八条" in o.waits.zh


def test_not_waiting_says_why():
    h = _ready(HandSession())
    h.type_hand("1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s", "7s", "")
    o = h.evaluate()
    assert o.waits.zh.startswith("没听牌：") and "差不止一张" in o.waits.zh


def test_add_a_tile_and_type_a_hand():
    h = _ready(_photo_hand(0))
    h.set_role(13, "delete")
    h.add_tile("8s", "hand", beside=12, won=True)
    assert h.evaluate().scored and h.photo.boxes[-1].origin == "added"
    with pytest.raises(CommandError):
        h.add_tile("xx")
    h.type_hand("22m 白白白 777p 333p 888s", "8s", "")
    assert h.evaluate().scored
    with pytest.raises(EntryError):
        h.type_hand("22m", "8s 9s", "")
    h.type_hand("22m 777p 333p 888s", "8s", "碰白")
    assert (
        h.kind_confirmed == {"meld1"} and h.evaluate().hand_json["players"]["S"]["melds"][0]["kind"] == "pong"
    )


def test_loser_melds_are_read_and_bad_text_is_a_problem():
    h = _ready(_photo_hand(0))
    h.set_loser_melds("N", "吃678m")
    assert h.evaluate().hand_json["players"]["N"]["melds"] == [{"kind": "chi", "tiles": ["6m", "7m", "8m"]}]
    h.set_loser_melds("W", "碰 xyz")
    o = h.evaluate()
    assert not o.scored and any("西家的副露" in p.zh for p in o.problems)
    h.set_loser_melds("W", "  ")
    assert "W" not in h.inputs.loser_melds and h.evaluate().scored
    h.set_loser_melds("S", "碰中")  # the winner's own field is ignored (his melds are his tiles)
    assert "S" not in h.evaluate().hand_json["players"]["S"].get("melds", [])


def test_situation_commands_refuse_what_is_not_there():
    h = HandSession()
    for bad in (lambda: h.set_winner("X"), lambda: h.set_win_by("magic"), lambda: h.set_indicator("0m"),
                lambda: h.set_dealer(None), lambda: h.set_flag("nope", True), lambda: h.set_preset("tokyo"),
                lambda: h.set_option("nope", 1), lambda: h.set_extra("gun_tile", "1m")):  # fmt: skip
        with pytest.raises(CommandError):
            bad()
    changes = h.changes
    h.set_dealer("W")
    assert h.changes == changes + 1  # every command marks the hand changed (the page saves it)


def test_set_preset_keeps_only_its_own_extras():
    h = HandSession("liaoyang")
    h.set_extra("bao_tile", "5m")
    h.set_preset("anshan")
    assert h.inputs.extras == {}
    h.set_extra("gun_tile", "2s")
    assert h.situation().gun_tile == "2s"


def test_the_sample_is_scored_but_never_recordable(tmp_path):
    h = HandSession()
    h.show_sample(sample_photo(None))
    o = h.evaluate()
    assert o.scored and o.result.payments["S"] == 750
    plan = h.record_plan(o, None)
    assert not plan.allowed and "示例" in plan.why_not.zh
    book = Scorebook(tmp_path / "b.sqlite")
    ev = book.ensure_evening()
    with pytest.raises(CommandError):
        h.record(book, o, ev.id)
    assert book.history(ev.id) == []


def test_recording_again_replaces_the_hand(tmp_path):
    book = Scorebook(tmp_path / "b.sqlite")
    ev = book.ensure_evening()
    h = _ready(_photo_hand(0))
    first = h.record(book, h.evaluate(), ev.id)
    assert first.number == 1
    plan = h.record_plan(h.evaluate(), book.find_photo(h.record_key, ev.id))
    assert not plan.allowed and plan.recorded_as == 1
    h.set_winner("N")
    plan = h.record_plan(h.evaluate(), book.find_photo(h.record_key, ev.id))
    assert plan.allowed and plan.replaces == 1
    again = h.record(book, h.evaluate(), ev.id)
    assert again.number == 1 and [r.winner for r in book.history(ev.id)] == ["N"]
    assert book.standing(ev.id).totals == h.evaluate().result.payments


def test_typed_hands_are_told_apart_in_the_book(tmp_path):
    """Two typed hands (no photo) are two records; each is replaced only by itself."""
    book = Scorebook(tmp_path / "b.sqlite")
    ev = book.ensure_evening()
    a, b = _ready(HandSession()), _ready(HandSession(), "W")
    for h in (a, b):
        h.type_hand("22m 白白白 777p 333p 888s", "8s", "")
        h.record(book, h.evaluate(), ev.id)
    assert a.record_key != b.record_key and len(book.history(ev.id)) == 2


def test_the_state_round_trips(tmp_path):
    h = _ready(_photo_hand(2))
    h.set_loser_melds("E", "碰5s")
    h.set_role(0, "meld1")
    h.set_meld_kind("meld1", "pong")
    h.set_extra("bao_tile", "3m")
    h.pick(5)
    back = HandSession.from_state(h.to_state(), h.photo_data, decode_photo)
    assert back.to_state() == h.to_state()
    assert back.photo.rgb.shape == h.photo.rgb.shape
    assert back.evaluate().hand_json == h.evaluate().hand_json
    with pytest.raises(ValueError):
        HandSession.from_state({**h.to_state(), "version": 99}, None)
