"""Numeric precisions: canonical names and bytes per element."""

from __future__ import annotations

from typing import Final

from tokenomics._validate import normalize_name, unknown_name_error

_ALIASES: Final[dict[str, str]] = {
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp16": "bf16",
    "float16": "bf16",
    "fp8": "fp8",
    "e4m3": "fp8",
    "fp8e4m3": "fp8",
    "int8": "fp8",
    "w8a8": "fp8",
    "fp4": "fp4",
    "nvfp4": "fp4",
    "mxfp4": "fp4",
    "int4": "fp4",
    "w4a16": "fp4",
    "w4a8": "fp4",
}

BYTES_PER_ELEMENT: Final[dict[str, float]] = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
"""Storage bytes per element by canonical precision (block-scale overhead of FP4/FP8 formats is
ignored: NVFP4 adds one FP8 scale per 16 values, +6%; MXFP4 one E8M0 per 32, +3%)."""


def canonical_precision(precision: str) -> str:
    """Map a precision name to ``"bf16"``, ``"fp8"`` or ``"fp4"`` (by storage width).

    Parameters
    ----------
    precision : str
        E.g. ``"BF16"``, ``"fp8"``, ``"NVFP4"``, ``"MXFP4"``, ``"int4"``, ``"int8"``.

    Returns
    -------
    str
        Canonical name.

    Raises
    ------
    KeyError
        For an unknown precision, listing close matches.

    Examples
    --------
    >>> canonical_precision("NVFP4")
    'fp4'
    """
    key = normalize_name(precision)
    if key not in _ALIASES:
        raise unknown_name_error("precision", precision, _ALIASES)
    return _ALIASES[key]


def bytes_per_element(precision: str) -> float:
    """Return storage bytes per element of a precision.

    Parameters
    ----------
    precision : str
        Any name accepted by :func:`canonical_precision`.

    Returns
    -------
    float
        Bytes per element [bytes]: 2 for BF16/FP16, 1 for FP8/INT8, 0.5 for FP4/INT4.

    Raises
    ------
    KeyError
        For an unknown precision.

    Examples
    --------
    >>> bytes_per_element("fp8")
    1.0
    """
    return BYTES_PER_ELEMENT[canonical_precision(precision)]
