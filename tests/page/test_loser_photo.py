"""page.loser_photo: a loser's melds read from a real photo pay exactly as the same melds typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from page.detector_loader import Detector
from page.hand_session import HandSession
from page.loser_photo import melds_from_photo
from tests.fake_reader import fake_detect

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "melds" / "loser_melds.jpg"
MODEL = ROOT / "models" / "model.json"


@pytest.fixture(scope="module")
def shipped():
    if not MODEL.is_file():
        pytest.skip("no shipped model")
    from page.detector_loader import model_detector

    return model_detector(str(MODEL))


def _scored(east_melds: str) -> HandSession:
    """South wins a typed hand (no 白, no 七饼) by self-draw; East's melds as given."""
    h = HandSession()
    h.type_hand("1m 45m 456p 789s 中中中 9p9p", "9p", "")
    h.set_winner("S")
    h.set_win_by("self_draw")
    h.set_indicator("9m")
    h.set_loser_melds("E", east_melds)
    return h


def test_a_real_photo_of_two_pongs_is_proposed_and_pays_as_typed(shipped):
    proposal = melds_from_photo(FIXTURE.read_bytes(), FIXTURE.name, shipped)
    assert proposal.melds == [("pong", ["P", "P", "P"]), ("pong", ["7p", "7p", "7p"])], proposal
    assert proposal.tiles == 6 and proposal.left_out == 0 and "请核对" in proposal.words.zh
    from_photo, typed = _scored(proposal.text).evaluate(), _scored("碰白 碰7p").evaluate()
    closed = _scored("").evaluate()
    assert from_photo.result.valid and from_photo.result.payments == typed.result.payments
    assert from_photo.result.to_dict() == typed.result.to_dict()
    assert from_photo.result.to_dict() != closed.result.to_dict()  # the melds matter: East is not 闭门


def test_a_photo_with_no_melds_proposes_nothing_in_words():
    proposal = melds_from_photo(FIXTURE.read_bytes(), FIXTURE.name, Detector(lambda rgb: [], "none"))
    assert proposal.text is None and "没看出副露" in proposal.words.zh
    assert melds_from_photo(b"not a photo", "x.jpg", Detector(fake_detect, "fake")).text is None
    assert "没有认牌模型" in melds_from_photo(b"", "x.jpg", None).words.zh


def test_a_loser_meld_is_fixed_on_the_tile_keyboard():
    h = _scored("碰白 吃345m")
    h.set_loser_meld_face("E", 1, 2, "6m")  # the last tile of the chow was a 6: 吃456m
    assert h.inputs.loser_melds["E"] == "碰白 吃456m"
    h.set_loser_meld_face("E", 0, 1, "C")  # a 碰 is one face throughout
    h.set_loser_meld_kind("E", 0, "kong")
    assert h.inputs.loser_melds["E"] == "明杠中 吃456m"
    with pytest.raises(ValueError) as err:
        h.set_loser_meld_kind("E", 0, "chi")
    assert "吃" in err.value.words.zh
    with pytest.raises(ValueError):
        h.set_loser_meld_face("E", 1, 0, "8m")  # 吃8m9m10m does not exist
    h.drop_loser_meld("E", 0)
    assert h.inputs.loser_melds["E"] == "吃456m" and h.evaluate().result.valid


def test_a_close_up_of_a_chow_and_a_pong_is_read_zoomed_out(shipped):
    """A meld photo taken close (tiles two thirds of the frame's height, a real photo's crop) is
    read on a canvas twice its size, where its tiles have a size the detector knows."""
    close = FIXTURE.parent / "closeup_chi_pong.jpg"
    proposal = melds_from_photo(close.read_bytes(), close.name, shipped)
    assert proposal.melds == [("chi", ["1m", "2m", "3m"]), ("pong", ["5m", "5m", "5m"])], proposal
    assert proposal.tiles == 6 and proposal.left_out == 0
