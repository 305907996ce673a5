"""The crop classifier: TileNet, how tiles are cut from a photo, and how crops are read.

Why its own module: training (vision.train.pipeline), adaptation to a player's set (vision.train.adapt) and
detection (vision.read.detect) must cut and read crops in exactly the same way; keeping the net and the
crop geometry in one place is what guarantees it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import cv2
import numpy as np
import torch
from torch import nn

from vision.classes import NUM_CLASSES
from vision.read.operating_point import DEFAULT

#: Classifier input: a tile crop turned upright-portrait and resized to CROP_W x CROP_H.
CROP_W, CROP_H = 48, 64
#: Crops include this fraction of the box size as context on every side.
CROP_MARGIN = 0.08


class TileNet(nn.Module):
    """Small CNN reading one tile crop (3 x 64 x 48) into 35 class logits (36 with `other`, 37 with `flower`).

    Deliberately small (~0.3 M parameters) so it trains in minutes on a laptop CPU and runs on a
    whole hand in a few milliseconds; spatial layout is kept to the end (no global pooling)
    because "how many bamboo sticks, where" is the class.
    """

    def __init__(self, num_classes: int = NUM_CLASSES, width: int = 24) -> None:
        super().__init__()

        def conv(cin: int, cout: int) -> list[nn.Module]:
            return [
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            ]

        w = width
        self.features = nn.Sequential(
            *conv(3, w),
            nn.MaxPool2d(2),  # 32 x 24
            *conv(w, 2 * w),
            *conv(2 * w, 2 * w),
            nn.MaxPool2d(2),  # 16 x 12
            *conv(2 * w, 4 * w),
            *conv(4 * w, 4 * w),
            nn.MaxPool2d(2),  # 8 x 6
            *conv(4 * w, 6 * w),
            nn.MaxPool2d(2),  # 4 x 3
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(6 * w * 12, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: float N x 3 x CROP_H x CROP_W in 0..1."""
        return self.head(self.features(x))


def for_reading(net: TileNet) -> TileNet:
    """A copy of `net` for reading only: each batch norm folded into the convolution before it.

    Why: the classifier is a third of the time a 12 MP photo takes to read (models/MODEL_CARD.md);
    in eval mode a batch norm is a fixed scale and shift, so folding it into the convolution's
    weights and bias gives the same outputs (to float rounding) with one pass over the tensors
    fewer per layer. Never trained: its layers are no longer TileNet's (adapt and training build
    their own TileNet from the weights file)."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    fused = copy.deepcopy(net).eval()
    layers, out = list(fused.features), []
    i = 0
    while i < len(layers):
        if (
            isinstance(layers[i], nn.Conv2d)
            and i + 1 < len(layers)
            and isinstance(layers[i + 1], nn.BatchNorm2d)
        ):
            out.append(fuse_conv_bn_eval(layers[i], layers[i + 1]))
            i += 2
        else:
            out.append(layers[i])
            i += 1
    fused.features = nn.Sequential(*out)
    # Channels last: oneDNN's convolutions run about twice as fast on a hand's crops in this layout
    # (15 crops: 19.6 -> 9.8 ms on 2 cores; probabilities within 3e-7), inputs made so by as_input.
    return fused.to(memory_format=torch.channels_last)


def classifier_outputs(state: dict) -> int:
    """How many classes a TileNet state dict reads: 35, 36 with `other`, 37 with `flower` too."""
    return int(state["head.2.weight"].shape[0])


def from_state(state: dict, width: int = 24) -> TileNet:
    """A TileNet reading exactly these weights (a tile_classifier.pt state dict, fp16 on disk), with
    as many outputs as they have. The reader checks a model's file first (detect.load_model)."""
    net = TileNet(num_classes=classifier_outputs(state), width=width)
    net.load_state_dict({k: v.float() for k, v in state.items()})
    return net


def crop_tiles(
    image: np.ndarray,
    boxes: np.ndarray,
    margin: float = CROP_MARGIN,
    size: tuple[int, int] = (CROP_W, CROP_H),
    turned: bool = False,
) -> np.ndarray:
    """Cut each box (x1,y1,x2,y2 pixels) from an RGB image as an upright-portrait crop of `size` (w, h).

    Landscape boxes (tiles lying sideways) are turned 90 degrees so every crop is portrait; the
    classifier is trained to read both 180-degree orientations and mirror images. Training cuts
    its crops with this same function (with a wider margin, for augmentation room).
    `turned`: the other way round, portrait boxes turned and landscape ones not: for a box whose
    shape says nothing of the tile's (a photo stretched out of its aspect, OperatingPoint.turn_below).
    """
    image = np.ascontiguousarray(image)  # no copy when it is already (decoded images are)
    h, w = image.shape[:2]
    out = np.zeros((len(boxes), size[1], size[0], 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, dtype=np.float64).reshape(-1, 4)):
        bw, bh = x2 - x1, y2 - y1
        xa, xb = int(max(0, np.floor(x1 - margin * bw))), int(min(w, np.ceil(x2 + margin * bw)))
        ya, yb = int(max(0, np.floor(y1 - margin * bh))), int(min(h, np.ceil(y2 + margin * bh)))
        if xb - xa < 2 or yb - ya < 2:
            continue
        crop = image[ya:yb, xa:xb]  # a view: OpenCV reads a row-strided slice as it is, no copy
        if (bw > bh) != turned:
            # np.rot90's turn, made by OpenCV: the same pixels, a tenth of numpy's time to copy
            crop = cv2.rotate(crop, cv2.ROTATE_90_COUNTERCLOCKWISE)
        out[i] = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    return out


def crops_to_tensor(crops: np.ndarray) -> torch.Tensor:
    """uint8 N x H x W x 3 -> float N x 3 x H x W in 0..1."""
    return torch.from_numpy(crops).permute(0, 3, 1, 2).float().div_(255.0)


def as_input(crops: np.ndarray) -> torch.Tensor:
    """crops_to_tensor in the channels-last layout of a net made for reading (for_reading)."""
    return crops_to_tensor(crops).contiguous(memory_format=torch.channels_last)


#: A crop whose face the classifier reads at least this sure from the crop as it is skips the
#: three other views: the average over them moves such a reading by a few hundredths at most, and
#: the four views cost four times as much as one. The value is the operating point's default
#: (a model's model.json may carry its own `tta_below`).
TTA_BELOW = DEFAULT.tta_below


def classify_crops(classifier: TileNet, crops: np.ndarray, tta_below: float = TTA_BELOW) -> np.ndarray:
    """Class probabilities per crop: from the crop as it is, averaged with its 180-degree turn and
    both mirrors where that reading is less sure than `tta_below` (1.0: every crop, 0: none).

    The classifier is trained on all four (tiles lie either way round; some train photos are
    mirrored), so averaging them is a free ensemble for the crops in doubt (its gain is measured in
    models/MODEL_CARD.md).
    """
    return read_crops(classifier, crops, tta_below).probs


def trunk_end(features: nn.Sequential, convs: int) -> int:
    """The index in `features` (a TileNet's, folded for reading or not) where its conv `convs` + 1
    starts: the layers before it are its first `convs` conv blocks with their pools (a shared trunk)."""
    starts = _conv_starts(features)
    if not 0 < convs < len(starts):
        raise ValueError(
            f"a trunk of {convs} conv blocks: the net has {len(starts)}, the last one is never shared"
        )
    return starts[convs]


def shared_convs(a: dict, b: dict) -> int:
    """How many of their leading conv blocks two TileNet state dicts hold the same weights in (conv,
    batch norm and its running statistics, compared exactly), the last block never counted (the
    gate runs at least its own last block and head): a flower gate learnt on the classifier's own
    features (vision.train.flower_gate, `shared`) shares them with it."""
    same = 0
    for start in _state_conv_starts(a)[:-1]:  # where each block starts: any width, any head
        names = [k for k in a if k.startswith((f"features.{start}.", f"features.{start + 1}."))]
        if not names or not all(
            k in b and a[k].shape == b[k].shape and torch.equal(a[k], b[k]) for k in names
        ):
            break
        same += 1
    return same


def _conv_starts(features: nn.Sequential) -> list[int]:
    return [i for i, layer in enumerate(features) if isinstance(layer, nn.Conv2d)]


def _state_conv_starts(state: dict) -> list[int]:
    """Where each conv block starts in a TileNet state dict's `features`: the layers holding a 4-D
    weight. Read from the weights themselves, so comparing two nets builds no net."""
    return sorted(
        int(k.split(".")[1])
        for k, v in state.items()
        if k.startswith("features.") and k.endswith(".weight") and v.ndim == 4
    )


@dataclass
class CropReading:
    """classify_crops' probabilities, and where asked (`trunk_to`), the activations of the crops as
    they are after the classifier's first layers (its reading net's `features[:trunk_to]`)."""

    probs: np.ndarray
    trunk: torch.Tensor | None = None


def read_crops(
    classifier: TileNet, crops: np.ndarray, tta_below: float = TTA_BELOW, trunk_to: int = 0
) -> CropReading:
    """classify_crops, keeping the trunk's activations of the crops as they are when `trunk_to` > 0
    (the same layers run, split in two: the same numbers), for a flower gate that shares them."""
    x = as_input(crops)
    with torch.inference_mode():
        trunk = classifier.features[:trunk_to](x) if trunk_to else None
        top = classifier.head(classifier.features[trunk_to:](trunk)) if trunk_to else classifier(x)
        probs = torch.softmax(top, 1)
        doubt = torch.nonzero(probs.max(1).values < tta_below).flatten()
        if len(doubt):
            d = x[doubt]
            # The three other views in one batch: one pass instead of three (same numbers).
            views = torch.cat((torch.flip(d, [2, 3]), torch.flip(d, [3]), torch.flip(d, [2])))
            more = torch.softmax(classifier(views), 1).view(3, len(doubt), -1).sum(0)
            probs[doubt] = (probs[doubt] + more) / 4
        return CropReading(probs.numpy(), trunk)


#: A flower gate's outputs: 0 a tile (any of the 35 faces), 1 a flower, season or joker tile.
GATE_OUTPUTS = 2


def flower_probability(gate: TileNet, crops: np.ndarray) -> np.ndarray:
    """Per crop, how surely the flower gate (a TileNet with GATE_OUTPUTS outputs) reads a flower,
    from the crop as it is: the gate is one question, asked once, so it adds a single small pass to
    the reading (models/MODEL_CARD.md, stop 52)."""
    with torch.inference_mode():
        return torch.softmax(gate(as_input(crops)), 1)[:, 1].numpy().astype(np.float64)


def flower_probability_on_trunk(gate: TileNet, trunk: torch.Tensor, trunk_to: int) -> np.ndarray:
    """flower_probability from the classifier's trunk activations of the crops (`read_crops`):
    only the gate's own layers run (`features[trunk_to:]` and its head), for a gate whose first
    layers are the classifier's (`shared_convs`)."""
    with torch.inference_mode():
        return torch.softmax(gate.head(gate.features[trunk_to:](trunk)), 1)[:, 1].numpy().astype(np.float64)
