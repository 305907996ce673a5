"""Photometric randomisation of a finished scene: what phones and webcams do to a photo of a table.

Why: the players' photos come from many cameras under many lamps.  A detector that saw only
well-exposed, neutral, sharp scenes learns that look; real photos are dark under a ceiling lamp
or blown out by a flash, orange under tungsten or blue under LEDs, carry bright glare on the glossy
tile faces, are out of focus or shaken, noisy in the dark, and often passed through a messaging
app's JPEG and a webcam's low resolution before we see them.

Each effect has its own switch (`vary.Variations`) and its own generator, so one can be measured
by leaving it out without changing what the others draw.  Strengths are random per scene and
include "none" for a share of scenes, so clean photos stay in the mix.  Exposure and white balance
are one 256-entry table per channel (cheap); glare is computed at half resolution (it is smooth).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.train.synth.vary import Variations, stream


def _exposure_curve(rng: np.random.Generator) -> np.ndarray:
    """Tone curve on [0, 1] of an under- or over-exposed photo (or a normal one), as 256 values.

    Gain in linear light, a soft shoulder (phones roll off highlights, but a strong overexposure
    still clips white faces), and a mild contrast S-curve of either sign."""
    r = rng.random()
    if r < 0.3:
        gain = rng.uniform(0.3, 0.75)  # under
    elif r < 0.55:
        gain = rng.uniform(1.3, 2.4)  # over
    else:
        gain = rng.uniform(0.85, 1.15)
    contrast = rng.uniform(-0.2, 0.35)
    x = np.linspace(0.0, 1.0, 256)
    lin = x**2.2 * gain
    shoulder = rng.uniform(0.0, 0.6)
    lin = lin / (1.0 + shoulder * lin) * (1.0 + shoulder)
    y = np.clip(lin, 0.0, 1.0) ** (1 / 2.2)
    return np.clip(y + contrast * (y - 0.5) * y * (1 - y) * 4, 0.0, 1.0)


def _white_balance(rng: np.random.Generator) -> np.ndarray:
    """Per-channel (B, G, R) gains of a colour cast: warm lamp to cool daylight/LED, and a little
    green-magenta (fluorescent tubes)."""
    t = rng.uniform(-1.0, 1.0) * (0.0 if rng.random() < 0.2 else 1.0)
    tint = rng.uniform(-0.06, 0.06)
    return np.array([1.0 - 0.2 * t, 1.0 + tint, 1.0 + 0.16 * t])


def tone(img: np.ndarray, vary: Variations, seed: int, index: int) -> np.ndarray:
    """Exposure and white balance through one lookup table per channel."""
    if not (vary.exposure or vary.white_balance):
        return img
    curve = _exposure_curve(stream(seed, index, "exposure")) if vary.exposure else np.linspace(0.0, 1.0, 256)
    gains = _white_balance(stream(seed, index, "white_balance")) if vary.white_balance else np.ones(3)
    luts = [
        np.clip(np.interp(np.linspace(0.0, 1.0, 256) * g, np.linspace(0, 1, 256), curve) * 255 + 0.5, 0, 255)
        for g in gains
    ]
    lut = np.stack(luts, axis=-1).astype(np.uint8).reshape(256, 1, 3)
    return cv2.LUT(img, lut)


def glare(img: np.ndarray, alpha: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Specular highlights: 1–3 soft ellipses with a hot core, strong on tiles (glossy), weak on the
    felt (`alpha` is 1 on tiles); half the scenes have none."""
    if rng.random() < 0.6:
        return img
    h, w = img.shape[:2]
    sh, sw = (h + 1) // 2, (w + 1) // 2
    spot = np.zeros((sh, sw), np.float32)
    on_tiles = np.argwhere(alpha[::8, ::8] > 0.9)
    for _ in range(int(rng.integers(1, 4))):
        if len(on_tiles) and rng.random() < 0.75:
            cy, cx = on_tiles[int(rng.integers(len(on_tiles)))] * 4
        else:
            cy, cx = rng.uniform(0, sh), rng.uniform(0, sw)
        ax = rng.uniform(0.015, 0.1) * max(sh, sw)
        ay = ax * rng.uniform(0.2, 1.0)
        blob = np.zeros_like(spot)
        cv2.ellipse(
            blob, (int(cx), int(cy)), (max(1, int(ax)), max(1, int(ay))), rng.uniform(0, 180), 0, 360, 1.0, -1
        )
        blob = cv2.GaussianBlur(blob, (0, 0), max(1.0, 0.35 * ay))
        spot = np.maximum(spot, np.clip(blob * rng.uniform(0.4, 1.2), 0, 0.85))  # faces show through
    gain = cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR)
    weight = gain * (0.25 + 0.75 * np.clip(alpha, 0, 1))
    out = img.astype(np.float32)
    out += (255.0 - out) * weight[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _disc(radius: float) -> np.ndarray:
    """Normalised disc kernel: a defocused lens spreads a point into a disc, not a Gaussian."""
    r = int(np.ceil(radius))
    k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(k, (r, r), max(1, int(round(radius))), 1.0, -1, cv2.LINE_AA)
    return k / k.sum()


def blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Defocus (disc, the whole photo or growing towards the far side) or camera shake (a line)."""
    r = rng.random()
    if r < 0.25:
        return cv2.filter2D(img, -1, _disc(rng.uniform(1.2, 3.5)))
    if r < 0.45:  # shallow depth of field: the far (upper) part of the table out of focus
        far = cv2.filter2D(img, -1, _disc(rng.uniform(1.5, 4.0)))
        h = img.shape[0]
        edge = rng.uniform(0.2, 0.6)
        ramp = np.clip((edge - np.linspace(0, 1, h, dtype=np.float32)) / 0.2, 0, 1)[:, None, None]
        return (far * ramp + img * (1 - ramp)).astype(np.uint8)
    if r < 0.6:
        k = int(rng.integers(5, 14))
        kern = np.zeros((k, k), np.float32)
        cv2.line(kern, (0, k // 2), (k - 1, k // 2), 1.0, 1, cv2.LINE_AA)
        m = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, m, (k, k))
        return cv2.filter2D(img, -1, kern / max(float(kern.sum()), 1e-6))
    return img


def noise(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise: luma grain, stronger in dark photos (high ISO), plus blotchy chroma noise."""
    if rng.random() < 0.3:
        return img
    h, w = img.shape[:2]
    dark = 1.0 - float(img[::8, ::8].mean()) / 255.0
    sigma = rng.uniform(1.0, 6.0) * (0.6 + 1.6 * dark)
    luma = rng.standard_normal((h, w), dtype=np.float32)
    ch, cw = max(2, h // 4), max(2, w // 4)
    chroma = rng.standard_normal((ch, cw, 3), dtype=np.float32) * (sigma * rng.uniform(0.3, 1.0))
    chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    chroma += (luma * sigma)[..., None]
    return cv2.add(img, chroma, dtype=cv2.CV_8U)  # rounds and saturates in one pass


def recompress(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A webcam's or messaging app's low resolution (down and up again) and/or an earlier JPEG pass
    at low quality (blocking, ringing, chroma smear)."""
    h, w = img.shape[:2]
    if rng.random() < 0.35:
        s = rng.uniform(0.35, 0.75)
        small = cv2.resize(img, (max(8, int(w * s)), max(8, int(h * s))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.45:
        q = int(rng.integers(20, 65))
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def apply(img: np.ndarray, alpha: np.ndarray, vary: Variations, seed: int, index: int) -> np.ndarray:
    """All switched-on effects in camera order: glare (in the scene), exposure and white balance
    (the sensor and its processing), blur, noise, then the earlier compression."""
    if vary.glare:
        img = glare(img, alpha, stream(seed, index, "glare"))
    img = tone(img, vary, seed, index)
    if vary.blur:
        img = blur(img, stream(seed, index, "blur"))
    if vary.noise:
        img = noise(img, stream(seed, index, "noise"))
    if vary.jpeg:
        img = recompress(img, stream(seed, index, "jpeg"))
    return img
