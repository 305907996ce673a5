"""page.hand_sync: the hand in progress survives a reload and reaches the table's other tabs."""

from __future__ import annotations

import pytest

from page import hand_sync
from page.detector_loader import Detector
from page.hand_session import HandSession
from page.hand_store import HandStore
from page.photo_state import decode_photo, read_photo, sample_photo
from tests.fake_reader import fake_detect, marked_photo


def _Reader() -> Detector:  # noqa: N802 - stands where a reader class stood
    return Detector(fake_detect, "fake")


def _sample() -> HandSession:
    s = HandSession()
    s.show_sample(sample_photo(None))
    return s


def _photo_hand() -> HandSession:
    data = marked_photo(0)
    h = HandSession()
    h.start_photo(read_photo(data, "hand.png", _Reader()), data)
    return h


def test_a_new_session_shows_the_sample_when_the_table_has_no_hand(tmp_path):
    store = HandStore(tmp_path / "b.sqlite")
    state: dict = {}
    h = hand_sync.current_hand(state, store, _sample, decode_photo)
    assert h.sample and store.load() is None  # the sample is never the table's hand
    h.set_winner("E")
    hand_sync.flush(state, store)
    assert store.load() is None


def test_a_reload_finds_the_hand_with_its_photo(tmp_path):
    store = HandStore(tmp_path / "b.sqlite")
    tab: dict = {}
    hand_sync.current_hand(tab, store, _sample)
    hand_sync.replace_hand(tab, store, _photo_hand())
    h = tab[hand_sync.HAND]
    assert _do(tab, store, "set_winner", "W")  # a command in a callback, stored at once
    h = tab[hand_sync.HAND]
    assert hand_sync.current_hand(tab, store, _sample) is h
    reload: dict = {}
    again = hand_sync.current_hand(reload, store, _sample, decode_photo)
    assert not again.sample and again.id == h.id and again.inputs.winner == "W"
    assert again.photo.rgb is not None and again.photo.rgb.shape == h.photo.rgb.shape


def _two_phones(tmp_path, photo_hand=_photo_hand):
    """Phone A uploads a photo (`photo_hand()`); phone B opens the page and finds it. Both hold
    their own copy."""
    store = HandStore(tmp_path / "b.sqlite")
    a: dict = {}
    hand_sync.current_hand(a, store, _sample)
    hand_sync.replace_hand(a, store, photo_hand())
    b: dict = {}
    hand_sync.current_hand(b, store, _sample, decode_photo)
    return store, a, b


def _do(tab, store, command, *args):
    """A tap on `tab`: the command with the ticket its widgets were drawn with."""
    return hand_sync.apply(tab, store, hand_sync.ticket(tab), command, *args)


def test_a_change_in_one_tab_reaches_the_other_with_fresh_widget_keys(tmp_path):
    store, a, b = _two_phones(tmp_path)
    key_before = hand_sync.widget_key(b, "melds_W")
    assert hand_sync.apply(a, store, hand_sync.widget_key(a, "melds_W"), "set_loser_melds", "W", "碰中")
    assert hand_sync.changed_elsewhere(b, store) and not hand_sync.changed_elsewhere(a, store)
    hb = hand_sync.current_hand(b, store, _sample, decode_photo)  # b's next run (or its poll) takes it
    assert hb.inputs.loser_melds == {"W": "碰中"}
    assert hand_sync.widget_key(b, "melds_W") != key_before
    assert hb.photo.rgb is not None  # the same photo: its picture is kept, not fetched again


def test_a_stale_tap_on_the_other_phone_keeps_both_changes(tmp_path):
    """A picks 南家 as the winner; B, not reloaded, taps 自摸: the stored hand has both (it once lost
    the winner on both phones)."""
    store, a, b = _two_phones(tmp_path)
    assert _do(a, store, "set_winner", "S")
    assert _do(b, store, "set_win_by", "self_draw")  # drawn before A's change
    stored = HandSession.from_state(store.load().state, None)
    assert (stored.inputs.winner, stored.inputs.win_by) == ("S", "self_draw")
    hb = b[hand_sync.HAND]
    assert (hb.inputs.winner, hb.inputs.win_by) == ("S", "self_draw")  # B shows the merged hand
    ha = hand_sync.current_hand(a, store, _sample, decode_photo)
    assert (ha.inputs.winner, ha.inputs.win_by) == ("S", "self_draw")


def test_a_fixed_tile_survives_a_meld_typed_on_the_other_phone(tmp_path):
    store, a, b = _two_phones(tmp_path)
    first = a[hand_sync.HAND].photo.boxes[0].cls
    assert _do(a, store, "set_face", 0, "9s")
    assert _do(b, store, "set_loser_melds", "W", "碰7p")
    for tab in (a, b):
        h = hand_sync.current_hand(tab, store, _sample, decode_photo)
        assert h.photo.boxes[0].cls == "9s" != first and h.inputs.loser_melds == {"W": "碰7p"}


def test_a_tap_on_a_hand_that_is_gone_is_refused_in_words(tmp_path):
    store, a, b = _two_phones(tmp_path)
    fresh = HandSession()
    fresh.new_hand()
    assert hand_sync.replace_hand(a, store, fresh)  # A: 新的一局
    assert not _do(b, store, "set_winner", "N")  # B still shows the photo
    assert b[hand_sync.MESSAGE].zh == "这一局在另一部手机上变了，已更新。"
    hb = hand_sync.current_hand(b, store, _sample, decode_photo)
    assert hb.id == fresh.id and hb.inputs.winner is None  # B shows the hand as it is now
    assert HandSession.from_state(store.load().state, None).inputs.winner is None


def test_a_tile_tap_after_the_tiles_were_retyped_is_refused(tmp_path):
    store, a, b = _two_phones(tmp_path)
    assert _do(a, store, "type_hand", "123m456p789sEEE22p", "2p", "")
    assert not _do(b, store, "set_face", 3, "5m")  # tile 4 of the old list is another tile now
    assert b[hand_sync.MESSAGE] == hand_sync.STALE_WORDS
    assert _do(b, store, "set_winner", "E")  # not a tile command: it applies to the retyped hand
    assert [x.cls for x in b[hand_sync.HAND].photo.boxes] == [x.cls for x in a[hand_sync.HAND].photo.boxes]


def test_a_new_photo_on_a_phone_that_has_not_seen_the_other_hand_is_refused(tmp_path):
    store, a, b = _two_phones(tmp_path)
    fresh = HandSession()
    fresh.new_hand()
    assert hand_sync.replace_hand(a, store, fresh)
    assert not hand_sync.replace_hand(b, store, _photo_hand())  # drawn for the photo A just replaced
    assert b[hand_sync.MESSAGE] == hand_sync.STALE_WORDS
    assert hand_sync.current_hand(b, store, _sample, decode_photo).id == fresh.id
    assert hand_sync.replace_hand(b, store, _photo_hand())  # now that it shows it: a new hand


def test_each_phone_keeps_its_own_keyboard_open(tmp_path):
    store, a, b = _two_phones(tmp_path)
    assert _do(a, store, "pick", 2)
    assert _do(b, store, "pick", 5)
    assert hand_sync.current_hand(a, store, _sample, decode_photo).photo.picked == 2
    assert hand_sync.current_hand(b, store, _sample, decode_photo).photo.picked == 5


def test_a_refused_command_says_why_in_both_languages(tmp_path):
    store, a, _ = _two_phones(tmp_path)
    assert not _do(a, store, "set_discarder", "N") or True
    assert _do(a, store, "set_winner", "N")
    assert not _do(a, store, "set_discarder", "N")
    words = a[hand_sync.MESSAGE]
    assert words.zh == "赢家不能点自己的炮" and "winner" in words.en


def test_the_photo_bytes_are_sent_once(tmp_path):
    store = HandStore(tmp_path / "b.sqlite")
    calls: list = []
    real_update = store.update

    def spy(change, table="default", photo=None):
        calls.append(photo is not None)
        return real_update(change, table, photo)

    store.update = spy  # type: ignore[method-assign]
    tab: dict = {}
    hand_sync.current_hand(tab, store, _sample)
    hand_sync.replace_hand(tab, store, _photo_hand())
    assert _do(tab, store, "set_winner", "N")
    assert calls == [True, False] and store.load().photo is not None


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda s: s["inputs"]["flags"].update(last_tiles="yes"), "坏了"),
        (lambda s: s["photo"]["boxes"][0].update(cls="zz"), "坏了"),
        (lambda s: s["photo"].update(winning="x"), "坏了"),
        (lambda s: s.update(version=2), "更新版本"),
    ],
    ids=["flag-a-string", "box-class-zz", "winning-x", "newer-version"],
)
def test_a_stored_hand_that_cannot_be_used_is_put_aside_and_said(tmp_path, damage, words):
    store, a, _ = _two_phones(tmp_path)
    saved = store.load()
    state = saved.state
    damage(state)
    store.save(state, None)
    reload: dict = {}
    h = hand_sync.current_hand(reload, store, _sample, decode_photo)
    assert h.sample  # nothing of the damaged hand is used
    assert words in reload[hand_sync.RESTORE_FAILED].zh and "没有丢" in reload[hand_sync.RESTORE_FAILED].zh
    assert store.load() is None and len(store.aside()) == 1  # kept aside, not overwritten
    fresh = HandSession()
    fresh.new_hand()
    assert hand_sync.replace_hand(reload, store, fresh)  # 新的一局 works
    assert store.load().state["id"] == fresh.id


def test_a_store_that_fails_keeps_the_hand_in_the_tab(tmp_path):
    class Broken:
        def _fail(self, *a, **k):
            from page.scorebook import ScorebookError
            from page.words import Words

            raise ScorebookError(Words("磁盘满了", "disk full"), "disk_full")

        save = load = revision = update = _fail

    tab: dict = {}
    h = hand_sync.current_hand(tab, Broken(), _sample)
    assert h.sample
    hand_sync.replace_hand(tab, Broken(), _photo_hand())
    assert tab[hand_sync.NOT_SAVED].zh == "磁盘满了" and not tab[hand_sync.HAND].sample
    assert _do(tab, Broken(), "set_winner", "E")  # the hand goes on in this tab
    assert tab[hand_sync.HAND].inputs.winner == "E"


def test_a_widget_of_the_hand_before_no_longer_belongs(tmp_path):
    """The sample's 北家 melds field firing its callback after a new photo must not reach the new hand
    (it once typed 吃678m into hand 1 of an evening: North paid 4 instead of 8)."""
    store = HandStore(tmp_path / "b.sqlite")
    tab: dict = {}
    hand_sync.current_hand(tab, store, _sample)
    sample_field = hand_sync.widget_key(tab, "melds_N")
    sample_ticket = hand_sync.ticket(tab)
    assert hand_sync.belongs(tab, sample_field) and hand_sync.belongs(tab, sample_ticket)
    hand_sync.replace_hand(tab, store, _photo_hand())
    assert not hand_sync.belongs(tab, sample_field) and not hand_sync.belongs(tab, sample_ticket)
    new_field = hand_sync.widget_key(tab, "melds_N")
    assert _do(tab, store, "set_winner", "S")  # commands do not change which widgets belong
    assert hand_sync.belongs(tab, new_field)
    other: dict = {}  # another phone of the table starts another hand: this tab's widgets are stale
    hand_sync.current_hand(other, store, _sample, decode_photo)
    fresh = HandSession()
    fresh.new_hand()
    hand_sync.replace_hand(other, store, fresh)
    hand_sync.current_hand(tab, store, _sample, decode_photo)
    assert not hand_sync.belongs(tab, new_field)
    assert not hand_sync.belongs({}, new_field)  # no hand yet: nothing belongs


def _draw(tab, name, value):
    """What `page.panels.common.bind` does when the page draws a widget: its key, its value."""
    key = hand_sync.bound_key(tab, name, value)
    tab[key] = value
    hand_sync.drawn_with(tab, key, value)
    return key


def _melds(store, seat):
    return store.load().state["inputs"]["loser_melds"].get(seat, "")


def test_a_field_filled_by_a_photo_keeps_it_when_the_browser_resends_its_empty_value(tmp_path):
    """The melds field is drawn empty; a photo of West's melds fills the hand (a command of this
    phone, same drawing); the browser's next message still carries the empty field (a poll queued
    while the photo was read) and Streamlit calls the field back. Seen wiping the melds in a real
    Chromium with a slow reader (CI at stops 45, 48, 49)."""
    store, a, _ = _two_phones(tmp_path)
    empty = _draw(a, "melds_W", "")
    assert _do(a, store, "set_loser_melds", "W", "碰中")  # the photo's proposal
    filled = _draw(a, "melds_W", "碰中")
    assert filled != empty and filled.startswith(hand_sync.widget_key(a, "melds_W"))
    assert hand_sync.belongs(a, filled)
    a[empty] = ""  # the old field's value, sent again
    assert not hand_sync.apply_widget(a, store, empty, "set_loser_melds", "W")
    assert _melds(store, "W") == "碰中"
    assert _draw(a, "melds_W", "碰中") == filled  # drawn again with the same value: the same field
    a[filled] = ""  # the player empties the field that shows 碰中: that is applied
    assert hand_sync.apply_widget(a, store, filled, "set_loser_melds", "W")
    assert _melds(store, "W") == ""
    assert _draw(a, "melds_W", "") == filled  # his own change: the field he typed in stays


def test_a_field_keeps_its_key_while_the_player_types_in_it(tmp_path):
    store, a, _ = _two_phones(tmp_path)
    field = _draw(a, "melds_W", "")
    a[field] = "碰7p"
    assert hand_sync.apply_widget(a, store, field, "set_loser_melds", "W")
    assert _draw(a, "melds_W", _melds(store, "W")) == field


def test_an_older_page_resending_its_drawn_values_changes_nothing(tmp_path):
    """Phone A's browser still shows the drawing before it took B's winner; a tap there sends every
    widget's old value, and Streamlit calls each back (seen in the two-phone browser test)."""
    store, a, b = _two_phones(tmp_path)
    assert _do(a, store, "set_winner", "S")
    hand_sync.current_hand(b, store, _sample, decode_photo)
    old_winner = _draw(a, "winner", "S")
    old_flag = _draw(a, "flag_gangkai", False)
    assert _do(b, store, "set_winner", "N")
    hand_sync.current_hand(a, store, _sample, decode_photo)  # A's session takes it: fresh keys
    assert hand_sync.widget_key(a, "winner") != old_winner
    assert not hand_sync.apply_widget(a, store, old_winner, "set_winner")  # S, as drawn: dropped
    assert not hand_sync.apply_widget(a, store, old_flag, "set_flag", "gangkai")
    assert store.load().state["inputs"]["winner"] == "N"
    assert not hand_sync.changed_elsewhere(b, store)  # nothing was written


def test_a_player_tap_on_an_older_page_is_still_applied_and_merged(tmp_path):
    store, a, b = _two_phones(tmp_path)
    old_by = _draw(a, "win_by", None)
    assert _do(b, store, "set_winner", "N")
    hand_sync.current_hand(a, store, _sample, decode_photo)
    a[old_by] = "self_draw"  # the player tapped 自摸 on the page not yet redrawn
    assert hand_sync.apply_widget(a, store, old_by, "set_win_by")
    stored = store.load().state["inputs"]
    assert (stored["winner"], stored["win_by"]) == ("N", "self_draw")


def test_a_tap_that_lands_after_this_phone_drew_the_other_phones_change_shows_under_a_fresh_key(tmp_path):
    """Phone A picks 南家; phone B's poll redraws B with it (fresh keys, 自摸 drawn empty), and the
    player's tap on B's older page lands while that run is under way. The tap is applied, both
    changes are kept, and B's 怎么胡的 is drawn under a fresh key that shows 自摸: the field already
    drawn empty in this drawing would otherwise send its empty value back over the tap. (A browser
    helper that looked for the field's plain key waited in vain: CI at stop 64.)"""
    store, a, b = _two_phones(tmp_path)
    old_by = _draw(b, "win_by", None)
    assert _do(a, store, "set_winner", "S")
    hand_sync.current_hand(b, store, _sample, decode_photo)  # B's poll run takes A's winner
    drawn_empty = _draw(b, "win_by", None)  # ... and draws the field empty before the tap lands
    b[old_by] = "self_draw"  # the tap on B's page not yet redrawn
    assert hand_sync.apply_widget(b, store, old_by, "set_win_by")
    shown = _draw(b, "win_by", "self_draw")  # B's next run
    assert shown == drawn_empty + "_v1" and b[shown] == "self_draw"
    stored = store.load().state["inputs"]
    assert (stored["winner"], stored["win_by"]) == ("S", "self_draw")
    b[drawn_empty] = None  # the empty field, sent again by the browser: dropped
    assert not hand_sync.apply_widget(b, store, drawn_empty, "set_win_by")
    assert store.load().state["inputs"]["win_by"] == "self_draw"


def test_the_drawn_values_of_old_drawings_are_forgotten(tmp_path):
    store, a, b = _two_phones(tmp_path)
    first = _draw(a, "winner", None)
    for seat in "ESWNESWN":  # eight changes on the other phone, each taken by A with fresh keys
        assert _do(b, store, "set_winner", seat)
        hand_sync.current_hand(a, store, _sample, decode_photo)
        _draw(a, "winner", seat)
    kept = a[hand_sync.DRAWN]
    assert first not in kept and len(kept) == hand_sync.KEEP_DRAWN
    assert hand_sync.widget_key(a, "winner") in kept


def test_a_widget_too_old_to_be_remembered_is_dropped(tmp_path):
    store, a, b = _two_phones(tmp_path)
    ancient = hand_sync.widget_key(a, "winner")  # never bound: nothing remembered of it
    for seat in "ESWNE":
        assert _do(b, store, "set_winner", seat)
        hand_sync.current_hand(a, store, _sample, decode_photo)
    a[ancient] = "S"
    assert not hand_sync.apply_widget(a, store, ancient, "set_winner")
    assert store.load().state["inputs"]["winner"] == "E"
    fresh = hand_sync.widget_key(a, "winner")  # of this drawing, not bound (a test, a new panel)
    a[fresh] = "W"
    assert hand_sync.apply_widget(a, store, fresh, "set_winner")
