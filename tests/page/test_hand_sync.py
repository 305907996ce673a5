"""page.hand_sync: the hand in progress survives a reload and reaches the table's other tabs."""

from __future__ import annotations

from page import hand_sync
from page.hand_session import HandSession
from page.hand_store import HandStore
from page.photo_state import decode_photo, read_photo, sample_photo
from tests.fake_reader import fake_detect, marked_photo


class _Reader:
    version = "fake"

    def run(self, rgb):
        return fake_detect(rgb)


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
    h.set_winner("W")  # a command in a callback; saved at the top of the next run
    assert hand_sync.current_hand(tab, store, _sample) is h
    reload: dict = {}
    again = hand_sync.current_hand(reload, store, _sample, decode_photo)
    assert not again.sample and again.id == h.id and again.inputs.winner == "W"
    assert again.photo.rgb is not None and again.photo.rgb.shape == h.photo.rgb.shape


def test_a_change_in_one_tab_reaches_the_other_with_fresh_widget_keys(tmp_path):
    store = HandStore(tmp_path / "b.sqlite")
    a: dict = {}
    hand_sync.current_hand(a, store, _sample)
    hand_sync.replace_hand(a, store, _photo_hand())
    b: dict = {}
    hand_sync.current_hand(b, store, _sample, decode_photo)
    key_before = hand_sync.widget_key(b, "melds_W")
    a[hand_sync.HAND].set_loser_melds("W", "碰中")
    hand_sync.current_hand(a, store, _sample)  # a's run saves it
    hb = hand_sync.current_hand(b, store, _sample, decode_photo)  # b's next run takes it
    assert hb.inputs.loser_melds == {"W": "碰中"}
    assert hand_sync.widget_key(b, "melds_W") != key_before


def test_the_photo_bytes_are_sent_once(tmp_path):
    store = HandStore(tmp_path / "b.sqlite")
    calls: list = []
    real_save = store.save

    def spy(state, photo, table="default"):
        calls.append(photo is not None)
        return real_save(state, photo, table)

    store.save = spy  # type: ignore[method-assign]
    tab: dict = {}
    hand_sync.current_hand(tab, store, _sample)
    hand_sync.replace_hand(tab, store, _photo_hand())
    tab[hand_sync.HAND].set_winner("N")
    hand_sync.flush(tab, store)
    assert calls == [True, False]


def test_a_store_that_fails_keeps_the_hand_in_the_tab(tmp_path):
    class Broken:
        def save(self, *a, **k):
            raise OSError("disk full")

        def load(self, *a, **k):
            raise OSError("unreadable")

        def revision(self, *a, **k):
            raise OSError("unreadable")

    tab: dict = {}
    h = hand_sync.current_hand(tab, Broken(), _sample)
    assert h.sample
    hand_sync.replace_hand(tab, Broken(), _photo_hand())
    assert "disk full" in tab[hand_sync.NOT_SAVED] and not tab[hand_sync.HAND].sample


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
    tab[hand_sync.HAND].set_winner("S")  # commands do not change which widgets belong
    assert hand_sync.current_hand(tab, store, _sample) is tab[hand_sync.HAND]
    assert hand_sync.belongs(tab, new_field)
    other: dict = {}  # another phone of the table changes the hand: this tab's widgets are stale
    hand_sync.current_hand(other, store, _sample, decode_photo).set_winner("W")
    hand_sync.flush(other, store)
    hand_sync.current_hand(tab, store, _sample, decode_photo)
    assert not hand_sync.belongs(tab, new_field)
    assert not hand_sync.belongs({}, new_field)  # no hand yet: nothing belongs
