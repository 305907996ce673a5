"""The one exception type for malformed input, so callers can report exactly which field is wrong."""

from __future__ import annotations


class HandError(ValueError):
    """Malformed hand input: `field` names the JSON path (e.g. `players.S.concealed[3]`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)
