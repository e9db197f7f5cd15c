"""What a block of text on a figure reads as: its lines, without their colours' markup."""

import html
import re
from collections.abc import Iterable

__all__ = ["block_lines"]


def block_lines(texts: Iterable[str] | None) -> list[str]:
    """The lines of the price-of-privacy screen's blocks (``<span>`` per line), as they read."""
    return [
        html.unescape(line)
        for text in texts or ()
        for line in re.findall(r">([^<]*)</span>", text or "")
    ]
