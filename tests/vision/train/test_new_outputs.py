"""--cls-new-only: a new output is learnt while every weight the classifier had stays as it was."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vision.classes import FLOWER_ID, NUM_CLASSES, OTHER_ID
from vision.read.tilenet import TileNet, crops_to_tensor
from vision.train import crops as vcrops
from vision.train.new_outputs import train_new_outputs


def _crops(n_per_class: int, classes: list[int], seed: int = 0) -> vcrops.CropSet:
    """Crops whose class is written in their colour, so a linear read-out can learn `flower`."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in classes:
        x = rng.integers(0, 40, (n_per_class, vcrops.SRC_H, vcrops.SRC_W, 3), dtype=np.uint8)
        x[..., c % 3] += np.uint8(200 if c == FLOWER_ID else 5 * (c % 30))
        xs.append(x)
        ys.append(np.full(n_per_class, c, np.int64))
    return vcrops.CropSet(np.concatenate(xs), np.concatenate(ys))


def _shipped(tmp_path):
    torch.manual_seed(0)
    net = TileNet(num_classes=OTHER_ID + 1)
    path = tmp_path / "shipped.pt"
    torch.save({k: v.half() for k, v in net.state_dict().items()}, path)
    return path


def test_only_the_new_output_moves(tmp_path):
    """Features and the 36 earlier rows are bit-identical after training; the 37th is learnt."""
    init = _shipped(tmp_path)
    before = torch.load(init, weights_only=True)
    train = _crops(24, [0, 18, 33, OTHER_ID, FLOWER_ID])
    out = train_new_outputs(
        train, tmp_path / "run", init, FLOWER_ID + 1, epochs=2, lr=0.05, log=lambda s: None
    )
    after = torch.load(out, weights_only=True)
    for key, value in before.items():
        if key.startswith("head.2."):
            assert torch.equal(after[key][: OTHER_ID + 1], value), key
            assert after[key].shape[0] == FLOWER_ID + 1
        else:
            assert torch.equal(after[key], value), key
    assert not torch.equal(after["head.2.weight"][FLOWER_ID], torch.zeros_like(after["head.2.weight"][0]))


def test_the_earlier_outputs_read_every_crop_as_before(tmp_path):
    """On crops the new output does not top, the earlier outputs' ranking and ratios are the
    shipped ones: their logits are unchanged, the softmax only gains one term."""
    init = _shipped(tmp_path)
    out = train_new_outputs(
        _crops(24, [0, 18, FLOWER_ID]), tmp_path / "run", init, FLOWER_ID + 1, epochs=1, log=lambda s: None
    )
    old, new = TileNet(num_classes=OTHER_ID + 1), TileNet(num_classes=FLOWER_ID + 1)
    old.load_state_dict({k: v.float() for k, v in torch.load(init, weights_only=True).items()})
    new.load_state_dict({k: v.float() for k, v in torch.load(out, weights_only=True).items()})
    x = crops_to_tensor(np.ascontiguousarray(_crops(4, [0, 5, 18], seed=1).x[:, 8:72, 6:54]))
    with torch.inference_mode():
        a, b = old.eval()(x), new.eval()(x)
    assert torch.allclose(a, b[:, : OTHER_ID + 1], atol=1e-5)
    assert torch.equal(
        torch.softmax(b, 1)[:, :NUM_CLASSES].argmax(1), torch.softmax(a, 1)[:, :NUM_CLASSES].argmax(1)
    )


def test_the_new_output_learns_its_crops(tmp_path):
    init = _shipped(tmp_path)
    train = _crops(48, [0, 9, 18, FLOWER_ID])
    out = train_new_outputs(
        train, tmp_path / "run", init, FLOWER_ID + 1, epochs=8, batch_size=32, lr=0.05, log=lambda s: None
    )
    net = TileNet(num_classes=FLOWER_ID + 1)
    net.load_state_dict({k: v.float() for k, v in torch.load(out, weights_only=True).items()})
    test = _crops(16, [0, FLOWER_ID], seed=3)
    x = crops_to_tensor(np.ascontiguousarray(test.x[:, 8:72, 6:54]))
    with torch.inference_mode():
        flower = net.eval()(x)[:, FLOWER_ID].numpy()
    # An untrained init reads every face alike, so only the ranking is learnable: every flower crop
    # must read more flower than every other crop.
    assert flower[test.y == FLOWER_ID].min() > flower[test.y != FLOWER_ID].max()


def test_weights_that_already_read_every_output_are_refused(tmp_path):
    init = _shipped(tmp_path)
    with pytest.raises(SystemExit, match="nothing to learn from output 36"):
        train_new_outputs(_crops(2, [0]), tmp_path / "run", init, OTHER_ID + 1, epochs=1, log=lambda s: None)


def test_other_learnt_again_moves_only_its_own_row(tmp_path):
    """--cls-relearn-other: `other` learns new clutter; features and every face row stay bit-identical,
    so a face is read exactly as shipped and only whether a box is a tile at all can move."""
    init = _shipped(tmp_path)
    before = torch.load(init, weights_only=True)
    out = train_new_outputs(
        _crops(24, [0, 18, 33, OTHER_ID]), tmp_path / "run", init, OTHER_ID + 1, epochs=2, lr=0.05,
        log=lambda s: None, first=OTHER_ID,
    )  # fmt: skip
    after = torch.load(out, weights_only=True)
    for key, value in before.items():
        if key.startswith("head.2."):
            assert torch.equal(after[key][:OTHER_ID], value[:OTHER_ID]), key
            assert not torch.equal(after[key][OTHER_ID], value[OTHER_ID]), key
        else:
            assert torch.equal(after[key], value), key


def test_new_only_without_init_is_one_clear_line(tmp_path):
    from vision.train import pipeline
    from vision.train.config import TrainConfig

    args = TrainConfig(cls_new_only=True, cls_init=None)
    with pytest.raises(SystemExit, match="--cls-new-only needs --cls-init"):
        pipeline._train_new_only(args, _crops(1, [0]), FLOWER_ID + 1, tmp_path, tmp_path)


def test_the_flower_bar_is_the_lowest_that_keeps_the_tiles_tiles():
    """flower_bar: at most FLOWER_VETO_SHARE of the tile crops may be called flowers; the flower
    crops themselves (y == FLOWER_ID) do not count."""
    from vision.train.new_outputs import flower_bar

    probs = np.zeros((1003, FLOWER_ID + 1))
    probs[:, 0] = 1.0
    y = np.zeros(1003, np.int64)
    probs[:3] = 0.0
    probs[:3, [0, FLOWER_ID]] = [[0.45, 0.55], [0.35, 0.65], [0.25, 0.75]]  # three 1m read as flowers
    probs[3, [0, FLOWER_ID]], y[3] = [0.01, 0.99], FLOWER_ID
    assert flower_bar(probs, y, share=0.002) == 0.6  # at 0.6 two tiles in 1002 are flowers
    assert flower_bar(probs, y, share=0.001) == 0.7
    assert flower_bar(probs, y, share=0.0) == 0.8
    assert flower_bar(probs, y, share=0.01) == 0.0


def test_as_read_cuts_the_middle_the_reader_would():
    """A wide training crop of a box whose inner part is white reads white in the middle and keeps
    a margin of the dark surround at the CROP_MARGIN share."""
    from vision.read.tilenet import CROP_H, CROP_MARGIN, CROP_W

    wide = np.zeros((1, vcrops.SRC_H, vcrops.SRC_W, 3), np.uint8)
    bw, bh = vcrops.SRC_W / (1 + 2 * vcrops.SRC_MARGIN), vcrops.SRC_H / (1 + 2 * vcrops.SRC_MARGIN)
    x0, y0 = round((vcrops.SRC_W - bw) / 2), round((vcrops.SRC_H - bh) / 2)
    wide[0, y0 : y0 + round(bh), x0 : x0 + round(bw)] = 255
    out = vcrops.as_read(wide)
    assert out.shape == (1, CROP_H, CROP_W, 3)
    assert out[0, CROP_H // 2, CROP_W // 2, 0] == 255
    edge = round(CROP_W * CROP_MARGIN / (1 + 2 * CROP_MARGIN))
    assert out[0, CROP_H // 2, 0, 0] < 128 and out[0, CROP_H // 2, edge + 2, 0] == 255


def test_the_rescue_flower_bar_keeps_at_most_its_share_of_tiles_from_the_rescue():
    """rescue_flower_bar: the lowest step at which at most `share` of the tile crops read that much
    flower (whether or not flower tops their face); the flower crops do not count."""
    from vision.train.new_outputs import rescue_flower_bar

    probs = np.zeros((101, FLOWER_ID + 1))
    probs[:, 0] = 1.0
    y = np.zeros(101, np.int64)
    probs[:2, [0, FLOWER_ID]] = [[0.8, 0.2], [0.6, 0.4]]  # two 1m that lean to a flower
    probs[2, [0, FLOWER_ID]], y[2] = [0.01, 0.99], FLOWER_ID
    assert rescue_flower_bar(probs, y, share=0.01) == 0.25  # from 0.25 on, one tile in 100
    assert rescue_flower_bar(probs, y, share=0.0) == 0.45
    assert rescue_flower_bar(probs, y, share=0.02) == 0.05
