"""page.name_form: two phones typing the players' names keep each other's."""

from __future__ import annotations

from page import name_form
from page.scorebook import Scorebook


def test_an_untouched_field_follows_the_book_and_a_typed_one_keeps_its_text():
    state: dict = {}
    keys = name_form.sync_fields(state, {"E": "A", "S": "", "W": "", "N": ""})
    state[keys["W"]] = "C"  # typed here, not saved yet
    name_form.sync_fields(state, {"E": "A", "S": "B", "W": "", "N": ""})  # B named south elsewhere
    assert state[keys["S"]] == "B" and state[keys["W"]] == "C"
    assert name_form.drawn_names(state) == {"E": "A", "S": "B", "W": "", "N": ""}


def test_a_saved_field_follows_the_book_again():
    state: dict = {}
    keys = name_form.sync_fields(state, {"E": "", "S": "", "W": "", "N": ""})
    state[keys["W"]] = "C"
    name_form.sync_fields(state, {"E": "", "S": "", "W": "C", "N": ""})  # saved
    name_form.sync_fields(state, {"E": "", "S": "", "W": "D", "N": ""})  # renamed on the other phone
    assert state[keys["W"]] == "D"


def test_saving_from_a_form_drawn_before_the_other_phones_rename_keeps_both(tmp_path):
    book = Scorebook(tmp_path / "b.sqlite")
    ev = book.start_evening({"E": "A"})
    a: dict = {}
    b: dict = {}
    for phone in (a, b):
        name_form.sync_fields(phone, name_form.shown_names(ev.names))
    a[name_form.field_key("S")] = "B"
    book.rename(ev.id, {s: a[name_form.field_key(s)] for s in "ESWN"}, name_form.drawn_names(a))
    b[name_form.field_key("W")] = "C"  # phone B, not redrawn since
    typed = {s: b[name_form.field_key(s)] for s in "ESWN"}
    ev = book.rename(ev.id, typed, name_form.drawn_names(b))
    assert (ev.names["E"], ev.names["S"], ev.names["W"]) == ("A", "B", "C")


def test_a_name_typed_before_the_evening_began_keeps_its_field_when_it_begins():
    """Phone A's first record starts the evening while B types: B's field keeps its key and its text
    (a new key would drop what B's browser holds unsent), and only the untouched seats follow."""
    state: dict = {}
    before = name_form.sync_fields(state, name_form.shown_names({}))
    state[before["W"]] = "C"
    after = name_form.sync_fields(
        state, name_form.shown_names({"E": "东家", "S": "B", "W": "西家", "N": "北家"})
    )
    assert after == before
    assert (state[after["S"]], state[after["W"]]) == ("B", "C")
    assert name_form.drawn_names(state) == {"E": "", "S": "B", "W": "", "N": ""}


def test_first_names_saved_on_two_phones_start_one_evening_with_both(tmp_path):
    """Both phones drawn before any evening; A saves first (starting it), B's save only adds its seat."""
    book = Scorebook(tmp_path / "b.sqlite")
    blank = {s: "" for s in "ESWN"}
    name_form.save_names(book, {**blank, "S": "B"}, blank, "liaoyang")
    name_form.save_names(book, {**blank, "W": "C"}, blank, "liaoyang")
    assert len(book.evenings()) == 1
    names = book.current().names
    assert (names["S"], names["W"]) == ("B", "C")
