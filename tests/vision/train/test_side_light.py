"""--cls-side-light: training crops lit from one side (a brightness ramp across the crop)."""

from __future__ import annotations

import torch

from vision.train import crops as vcrops


def _grey(n: int, h: int = vcrops.CROP_H, w: int = vcrops.CROP_W) -> torch.Tensor:
    return torch.full((n, 3, h, w), 0.5)


def test_share_zero_draws_what_every_recipe_before_it_drew():
    x = torch.rand(8, 3, vcrops.SRC_H, vcrops.SRC_W, generator=torch.Generator().manual_seed(0))
    a = vcrops.augment(x, torch.Generator().manual_seed(1))
    b = vcrops.augment(x, torch.Generator().manual_seed(1), side_light=0.0)
    assert torch.equal(a, b)


def test_a_lit_crop_ramps_from_one_side_to_the_other_around_its_light():
    out = vcrops.lit_from_one_side(_grey(64), 1.0, torch.Generator().manual_seed(0))
    lo, hi = vcrops.SIDE_LIGHT_RAMP
    for crop in out:
        darkest, brightest = float(crop.min()), float(crop.max())
        assert abs((darkest + brightest) / 2 - 0.5) < 1e-5  # the ramp is even about the crop's light
        assert 0.5 * (1 - hi) - 1e-5 <= darkest <= 0.5 * (1 - lo) + 1e-5
        assert abs((brightest - 0.5) - (0.5 - darkest)) < 1e-5
        assert torch.equal(crop[0], crop[1]) and torch.equal(crop[1], crop[2])  # light, not a colour cast
    flat = out.std(dim=(1, 2, 3))
    assert bool((flat > 0.02).all())
    directions = out[:, 0, 0, 0] - out[:, 0, -1, -1]  # top-left against bottom-right
    assert bool((directions > 0).any() and (directions < 0).any())  # lit from every side


def test_only_the_share_is_lit():
    out = vcrops.lit_from_one_side(_grey(4000), 0.5, torch.Generator().manual_seed(3))
    lit = out.std(dim=(1, 2, 3)) > 1e-6
    assert 0.45 < float(lit.float().mean()) < 0.55
    assert torch.equal(out[~lit], _grey(int((~lit).sum())))


def test_augment_lights_the_share_it_is_given():
    """Through augment, a share of 1 lights each crop across (its halves differ in brightness more
    than without)."""
    x = torch.full((400, 3, vcrops.SRC_H, vcrops.SRC_W), 0.5)

    def halves(side_light: float) -> float:
        out = vcrops.augment(x, torch.Generator().manual_seed(2), side_light=side_light)
        w = out.shape[-1] // 2
        return float((out[..., :w].mean(dim=(1, 2, 3)) - out[..., w:].mean(dim=(1, 2, 3))).abs().mean())

    assert halves(1.0) > 4 * halves(0.0)
