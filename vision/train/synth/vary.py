"""Which kinds of domain randomisation a synthetic run applies (so the reader generalises across prints).

Why switches: every kind of variation costs realism somewhere and helps only if the real photos
need it; to measure what each one does, a run must be able to leave any one out.  With every
switch off the generator gives the bytes of the version before these variations existed, because
each variation draws from its own generator `[seed, index, stream]` and leaves the scene's main
generator alone.  For the same reason, turning one variation on or off changes nothing that the
others draw.

    python -m vision synth ... --vary all            (default)
    python -m vision synth ... --vary none           (the earlier generator, byte for byte)
    python -m vision synth ... --no-vary glare,seat  (all but these)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Variations:
    """One switch per kind of variation (True = applied)."""

    prints: bool = True  # drawn bank v3: red-numeral 萬, more 1s birds, more 白 frames, palettes, strokes
    bodies: bool = True  # tile body colour: white, ivory, cream, yellowish
    backs: bool = True  # back colour: green, blue, yellow, orange, pink, ... (backs and tile sides)
    felt: bool = True  # automatic-table felt (green, dark green, blue, grey, red, black) and wood
    seat: bool = True  # some scenes seen from the player's seat: upright tiles, oblique, row at an angle
    exposure: bool = True  # phone/webcam exposure: under- and over-exposed, contrast curve
    white_balance: bool = True  # warm (tungsten) to cool (shade, LED) colour casts
    glare: bool = True  # specular highlights on the glossy tiles
    blur: bool = True  # defocus (disc) and motion blur on top of the earlier mild blur
    noise: bool = True  # sensor noise with chroma, stronger in dark photos
    jpeg: bool = True  # a phone's or messaging app's earlier JPEG pass and webcam-resolution resampling
    clutter: bool = True  # things that are no tile around the hand: books, cards, phone, cup, chips, hands
    titles: bool = True  # printed titles down the spines of the shelf behind a low seat scene (stop 49)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def none(cls) -> Variations:
        return cls(**dict.fromkeys(cls.names(), False))

    @classmethod
    def parse(cls, vary: str = "all", no_vary: str = "") -> Variations:
        """`vary`: 'all', 'none' or comma-separated names; `no_vary`: names taken out of that.

        Raises ValueError naming an unknown switch."""
        known = cls.names()

        def split(text: str) -> list[str]:
            items = [t.strip() for t in text.split(",") if t.strip()]
            bad = [t for t in items if t not in known]
            if bad:
                raise ValueError(f"unknown variation {', '.join(bad)} (known: {', '.join(known)})")
            return items

        if vary.strip() == "all":
            on = set(known)
        elif vary.strip() == "none":
            on = set()
        else:
            on = set(split(vary))
        on -= set(split(no_vary))
        return cls(**{n: n in on for n in known})

    def label(self) -> str:
        """'all', 'none' or the names that are on, for logs."""
        on = [n for n in self.names() if getattr(self, n)]
        return "all" if len(on) == len(self.names()) else ("none" if not on else ",".join(on))

    @property
    def photometric(self) -> bool:
        return self.exposure or self.white_balance or self.glare or self.blur or self.noise or self.jpeg


ALL = Variations()
NONE = Variations.none()

#: Third seed words of the variations' own generators (arbitrary, distinct, never reused).
STREAMS: dict[str, int] = {
    "bodies": 0xB0D1,
    "backs": 0xBAC5,
    "felt": 0xFE17,
    "seat": 0x5EA7,
    "exposure": 0xE790,
    "white_balance": 0x3B1A,
    "glare": 0x61A2,
    "blur": 0xB1C2,
    "noise": 0x9015,
    "jpeg": 0x1BE6,
    "clutter": 0xC177,
    "titles": 0x717E,
}


def stream(seed: int, index: int, name: str) -> np.random.Generator:
    """The generator of variation `name` for scene `index` of run `seed`."""
    return np.random.default_rng([seed, index, STREAMS[name]])
