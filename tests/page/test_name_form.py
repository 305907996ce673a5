"""page.name_form: two phones typing the players' names keep each other's."""

from __future__ import annotations

from page import name_form
from page.scorebook import Scorebook


def test_an_untouched_field_follows_the_book_and_a_typed_one_keeps_its_text():
    state: dict = {}
    keys = name_form.sync_fields(state, 1, {"E": "A", "S": "", "W": "", "N": ""})
    state[keys["W"]] = "C"  # typed here, not saved yet
    name_form.sync_fields(state, 1, {"E": "A", "S": "B", "W": "", "N": ""})  # B named south elsewhere
    assert state[keys["S"]] == "B" and state[keys["W"]] == "C"
    assert name_form.drawn_names(state, 1) == {"E": "A", "S": "B", "W": "", "N": ""}


def test_a_saved_field_follows_the_book_again():
    state: dict = {}
    keys = name_form.sync_fields(state, 1, {"E": "", "S": "", "W": "", "N": ""})
    state[keys["W"]] = "C"
    name_form.sync_fields(state, 1, {"E": "", "S": "", "W": "C", "N": ""})  # saved
    name_form.sync_fields(state, 1, {"E": "", "S": "", "W": "D", "N": ""})  # renamed on the other phone
    assert state[keys["W"]] == "D"


def test_saving_from_a_form_drawn_before_the_other_phones_rename_keeps_both(tmp_path):
    book = Scorebook(tmp_path / "b.sqlite")
    ev = book.start_evening({"E": "A"})
    a: dict = {}
    b: dict = {}
    for phone in (a, b):
        name_form.sync_fields(phone, ev.id, name_form.shown_names(ev.names))
    a[name_form.field_key(ev.id, "S")] = "B"
    book.rename(ev.id, {s: a[name_form.field_key(ev.id, s)] for s in "ESWN"}, name_form.drawn_names(a, ev.id))
    b[name_form.field_key(ev.id, "W")] = "C"  # phone B, not redrawn since
    typed = {s: b[name_form.field_key(ev.id, s)] for s in "ESWN"}
    ev = book.rename(ev.id, typed, name_form.drawn_names(b, ev.id))
    assert (ev.names["E"], ev.names["S"], ev.names["W"]) == ("A", "B", "C")
