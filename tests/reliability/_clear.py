"""What a clear error is, checked the same way by every bad-input case of this suite.

A case passes when the call raises the expected error type and the message contains every
fragment it must name (the field or file, the value, the allowed range). Errors that only an
implementation detail produces (AttributeError, RecursionError, UnicodeDecodeError, a raw
numpy or pandas message) are never the expected type, so they fail the case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

INTERNAL_MESSAGES = (
    "could not convert string to float",
    "operands could not be broadcast",
    "object has no attribute",
    "maximum recursion depth",
    "codec can't decode",
    "unsupported operand type",
    "Traceback",
)
"""Fragments of messages that only internals produce; a clear error never shows them."""


def message_of(err: BaseException) -> str:
    """The text a user reads: ``KeyError`` keeps its message in ``args[0]``."""
    if isinstance(err, KeyError) and err.args:
        return str(err.args[0])
    return str(err)


def assert_clear(
    call: Callable[[], Any], error: type[BaseException] | tuple[type[BaseException], ...],
    fragments: Iterable[str] = (),
) -> str:
    """Call and check that it fails with ``error`` naming every fragment (case-insensitive).

    Returns
    -------
    str
        The message, for further checks.
    """
    with pytest.raises(error) as info:
        call()
    text = message_of(info.value)
    low = text.lower()
    for frag in fragments:
        assert str(frag).lower() in low, f"{frag!r} missing from: {text}"
    for bad in INTERNAL_MESSAGES:
        assert bad.lower() not in low, f"internal message leaked: {text}"
    return text
