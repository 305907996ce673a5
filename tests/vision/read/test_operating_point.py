"""Every threshold a model.json carries is read one way (OperatingPoint.from_json): a value present
is taken, a key absent keeps its default (so a model.json older than a key reads as before), and a
value that is no confidence stops the load with one message naming its key. One test over every
field, so a key added later is checked without a test of its own."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from vision.read.operating_point import OperatingPoint

FIELDS = fields(OperatingPoint)


@pytest.mark.parametrize("field", FIELDS, ids=[f.name for f in FIELDS])
def test_each_key_is_read_kept_or_refused_by_its_name(field):
    default = OperatingPoint.from_json({})
    assert getattr(default, field.name) == field.default
    read = OperatingPoint.from_json({field.name: 0.375})
    assert getattr(read, field.name) == 0.375
    assert all(getattr(read, f.name) == getattr(default, f.name) for f in FIELDS if f is not field)
    for bad in (-0.5, 1.5, 320, True, "0.5"):
        with pytest.raises(ValueError, match=field.name):
            OperatingPoint.from_json({field.name: bad})


def test_the_readme_names_every_key():
    """README's list of the operating point stays true as keys are added."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    assert [f.name for f in FIELDS if f"`{f.name}`" not in readme] == []
