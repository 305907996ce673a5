"""--cls-any-turn: training crops of tiles lying at any angle, cut as the reader cuts a turned tile's
box (the upright box around it, squeezed into the portrait crop)."""

from __future__ import annotations

import math

import numpy as np
import torch

from vision.train import crops as vcrops

TALL = vcrops.CROP_H / vcrops.CROP_W


def _tiles(n: int) -> torch.Tensor:
    """Wide crops (SRC size) of a bright tile on a dark table, the tile where training crops put it
    (SRC_MARGIN around it)."""
    x = torch.full((n, 3, vcrops.SRC_H, vcrops.SRC_W), 0.1)
    tw, th = vcrops.SRC_W / (1 + 2 * vcrops.SRC_MARGIN), vcrops.SRC_H / (1 + 2 * vcrops.SRC_MARGIN)
    x0, y0 = round((vcrops.SRC_W - tw) / 2), round((vcrops.SRC_H - th) / 2)
    x[:, :, y0 : y0 + round(th), x0 : x0 + round(tw)] = 0.9
    return x


def test_the_box_around_a_turned_tile():
    wx, wy = vcrops.turned_box_widths(torch.tensor([0.0, math.pi / 4, math.pi / 2, -math.pi / 4]), TALL)
    assert torch.allclose(wx, torch.tensor([1.0, (1 + TALL) / math.sqrt(2), TALL, (1 + TALL) / math.sqrt(2)]))
    assert torch.allclose(
        wy, torch.tensor([1.0, (1 + 1 / TALL) / math.sqrt(2), 1 / TALL, (1 + 1 / TALL) / math.sqrt(2)])
    )


def test_share_zero_draws_what_every_recipe_before_it_drew():
    x = _tiles(8)
    a = vcrops.augment(x, torch.Generator().manual_seed(1))
    b = vcrops.augment(x, torch.Generator().manual_seed(1), any_turn=0.0)
    assert torch.equal(a, b)


def _bright(x: torch.Tensor) -> torch.Tensor:
    """Per crop (grey, N x H x W), where it is brighter than half its middle: the tile."""
    return x > 0.5 * x[:, vcrops.CROP_H // 2, vcrops.CROP_W // 2][:, None, None]


def _border_bright(x: torch.Tensor) -> np.ndarray:
    """Per crop, the share of its outermost pixels that are tile: a tile cut by the crop's sides."""
    b = _bright(x)
    return torch.cat([b[:, 0, :], b[:, -1, :], b[:, :, 0], b[:, :, -1]], 1).float().mean(1).numpy()


def _tile_share(x: torch.Tensor) -> np.ndarray:
    return _bright(x).float().mean((1, 2)).numpy()


def test_a_turned_tile_lies_whole_in_its_crop_as_a_diamond_in_its_box():
    """Turned by up to 45 degrees, the tile's corners stay inside the crop (its upright box, with the
    reader's margin), and it covers less of the crop than an upright tile does. Without the turn, a
    tile tilted by up to 12 degrees and zoomed by up to 12 % loses its corners to the crop's sides
    in about half the crops."""
    n = 256
    turned = vcrops.augment(_tiles(n), torch.Generator().manual_seed(0), any_turn=1.0).mean(1)
    plain = vcrops.augment(_tiles(n), torch.Generator().manual_seed(0)).mean(1)
    assert float((_border_bright(turned) > 0.05).mean()) < 0.1
    assert float((_border_bright(plain) > 0.05).mean()) > 0.3
    assert np.median(_tile_share(turned)) < np.median(_tile_share(plain)) - 0.15


def test_about_the_share_of_crops_are_turned():
    def share(any_turn: float) -> float:
        out = vcrops.augment(_tiles(2000), torch.Generator().manual_seed(5), any_turn=any_turn)
        return float(_tile_share(out.mean(1)).mean())

    plain, turned, quarter = share(0.0), share(1.0), share(0.25)
    assert abs(quarter - (0.75 * plain + 0.25 * turned)) < 0.03
