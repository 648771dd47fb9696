"""Default commercial terms: the license fee charged when none is given."""

from __future__ import annotations

from tokenomics.catalog import Model

__all__ = ["LICENSED_MODEL_FEE_FRAC", "default_license_fee_frac"]

LICENSED_MODEL_FEE_FRAC: float = 0.30
"""Default license fee (share of revenue) of a model whose weights are not open."""


def default_license_fee_frac(model: Model) -> float:
    """Default license fee: 0.30 of revenue for a licensed model, 0 for open weights.

    Parameters
    ----------
    model : Model
        Catalog model (:func:`tokenomics.model`); its ``open_weights`` field decides.

    Returns
    -------
    float
        License fee as a share of revenue [fraction].

    Examples
    --------
    >>> import tokenomics as tk
    >>> default_license_fee_frac(tk.model("deepseek-r1"))  # open weights
    0.0
    """
    return 0.0 if model.open_weights else LICENSED_MODEL_FEE_FRAC
