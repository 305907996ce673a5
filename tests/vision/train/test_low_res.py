"""--cls-low-res: training crops that lost resolution, as a squeezed export's tiles reach the reader."""

from __future__ import annotations

import torch

from vision.train import crops as vcrops


def _stripes(n: int = 8) -> torch.Tensor:
    """Crops of a 1 px checkerboard: the detail a lost width or height takes first."""
    yy, xx = torch.meshgrid(torch.arange(vcrops.CROP_H), torch.arange(vcrops.CROP_W), indexing="ij")
    return ((yy + xx) % 2).float().expand(n, 3, -1, -1).clone()


def test_share_zero_changes_nothing_and_draws_nothing():
    x = _stripes()
    gen = torch.Generator().manual_seed(3)
    assert vcrops.lose_resolution(x, 0.0, gen) is x
    assert torch.equal(
        gen.get_state(), torch.Generator().manual_seed(3).get_state()
    )  # earlier recipes' stream
    a = vcrops.augment(x, torch.Generator().manual_seed(1))
    b = vcrops.augment(x, torch.Generator().manual_seed(1), low_res=0.0)
    assert torch.equal(a, b)


def test_a_crop_that_loses_resolution_loses_its_fine_detail_and_keeps_its_size():
    x = _stripes(64)
    out = vcrops.lose_resolution(x, 1.0, torch.Generator().manual_seed(0))
    assert out.shape == x.shape
    detail = (out[..., 1:] - out[..., :-1]).abs().mean(dim=(1, 2, 3))  # 1.0 for the board as it was
    assert float((detail < 0.99).float().mean()) > 0.95  # (nearly) every crop resampled
    assert detail.min() < 0.5  # some narrowly: the stripes blur out
    assert abs(float(out.mean()) - float(x.mean())) < 0.05  # area down, bilinear up: brightness kept


def test_about_the_share_of_crops_lose_resolution_and_the_rest_are_untouched():
    x = _stripes(400)
    out = vcrops.lose_resolution(x, 0.5, torch.Generator().manual_seed(0))
    changed = (out != x).flatten(1).any(1)
    assert 150 < int(changed.sum()) < 250
    assert torch.equal(out[~changed], x[~changed])
    assert torch.equal(x, _stripes(400))  # the input batch is not written over
