"""Reading and validating tidy catalog files against the parameter vocabulary.

A catalog file is a CSV with one row per value: key column(s), ``parameter``, ``value``, ``unit``,
``source``, ``as_of``, ``confidence`` and ``note``. Every row is checked against the vocabulary
``data/parameters.csv``, which fixes, per parameter, its single allowed unit and the kind of value
(positive, fraction, integer, year, ...). A bad row raises :class:`CatalogError` naming the file,
the line, the field and what is wrong; nothing is dropped or defaulted.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

CONFIDENCE_LEVELS: tuple[str, ...] = ("verified", "secondary", "estimate", "unverified")
"""How sure a value is: ``verified`` in the vendor's or publisher's own text; ``secondary``
(press, aggregator, blog); ``estimate`` (someone's estimate or a stated derivation);
``unverified`` (placeholder pending a source)."""

ValueKind = Literal["positive", "nonnegative", "fraction", "integer", "count", "year", "ratio_ge1"]
VALUE_KINDS: tuple[str, ...] = ("positive", "nonnegative", "fraction", "integer", "count", "year", "ratio_ge1")
"""``integer``: a positive integer; ``count``: a non-negative integer (e.g. 0 shared experts)."""

VALUE_COLUMNS: tuple[str, ...] = ("parameter", "value", "unit", "source", "as_of", "confidence", "note")


class CatalogError(ValueError):
    """A catalog file is malformed.

    The message names the file, the line (1-based, header is line 1) or key, the field and what is
    wrong.
    """

    def __init__(self, path: Path | str, where: str, field: str, problem: str) -> None:
        self.path = str(path)
        self.where = where
        self.field = field
        self.problem = problem
        super().__init__(f"{self.path}, {where}, field {field!r}: {problem}")


@dataclass(frozen=True)
class ParameterSpec:
    """One vocabulary entry: a parameter's table, unit, value kind and description.

    Attributes
    ----------
    table : str
        Catalog table the parameter belongs to (``hardware``, ``model``, ...).
    parameter : str
        Parameter name; it ends in its unit where the unit is dimensional.
    unit : str
        The only unit rows may use for this parameter.
    kind : str
        One of :data:`VALUE_KINDS`: the allowed range of values.
    description : str
        What the parameter means, including per-chip/per-system and one-way/two-way conventions.
    max_value : float or None
        Largest plausible value (a guard against unit slips such as GB/s written as TB/s); None
        for no bound.
    min_value : float or None
        Smallest plausible non-zero value (a guard against slips the other way: TB written as
        GB, $/token written as $/Mtok, ms written as s); zero stays allowed where the kind
        allows it. None for no bound.
    """

    table: str
    parameter: str
    unit: str
    kind: str
    description: str
    max_value: float | None = None
    min_value: float | None = None

    @property
    def allowed_range(self) -> str:
        """The plausible range as text, e.g. ``"[4, 2000] GB"`` (``"0 or [...]"`` where 0 is allowed)."""
        lo = {"positive": "0", "nonnegative": "0", "fraction": "0", "integer": "1", "count": "0",
              "year": "1990", "ratio_ge1": "1"}.get(self.kind, "-inf")
        lo_open = self.kind == "positive"
        hi = "1" if self.kind == "fraction" else "2100" if self.kind == "year" else "inf"
        if self.min_value is not None:
            lo, lo_open = f"{self.min_value:g}", False
        if self.max_value is not None:
            hi = f"{self.max_value:g}"
        zero = "0 or " if self.min_value is not None and self.kind in ("nonnegative", "count") else ""
        unit = "" if self.unit in ("fraction", "count", "ratio", "year") else f" {self.unit}"
        return f"{zero}{'(' if lo_open else '['}{lo}, {hi}]{unit}"


@contextlib.contextmanager
def _open_text(path: Path) -> Iterator[Any]:
    """Open a CSV as UTF-8 text; a byte-order mark is dropped, undecodable bytes name the file."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            yield fh
    except UnicodeDecodeError as err:
        raise CatalogError(
            path, f"byte {err.start}", "encoding",
            f"not UTF-8 text ({err.reason}: {err.object[err.start:err.start + 4]!r}); save the file as UTF-8",
        ) from None
    except csv.Error as err:
        raise CatalogError(path, "file", "csv", f"malformed CSV ({err})") from None


def _rows(path: Path, reader: csv.DictReader[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, row)``; the line is the physical line in the file (header is line 1)."""
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as err:
        raise CatalogError(path, f"line {reader.line_num}", "csv", f"malformed CSV ({err})") from None


def read_vocabulary(path: Path) -> dict[tuple[str, str], ParameterSpec]:
    """Read the parameter vocabulary file.

    Parameters
    ----------
    path : pathlib.Path
        ``parameters.csv`` with columns ``table, parameter, unit, kind, description``.

    Returns
    -------
    dict
        ``(table, parameter) -> ParameterSpec``.

    Raises
    ------
    CatalogError
        On a missing column, an unknown kind, an empty unit or a duplicated parameter.
    """
    required = ("table", "parameter", "unit", "kind", "description")
    vocab: dict[tuple[str, str], ParameterSpec] = {}
    with _open_text(path) as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise CatalogError(path, "header", missing[0], "required column is missing")
        for line, row in _rows(path, reader):
            bounds: dict[str, float | None] = {}
            for col in ("max", "min"):
                text = (row.get(col) or "").strip()
                try:
                    bounds[col] = float(text) if text else None
                except ValueError:
                    raise CatalogError(path, f"line {line}", col, f"{text!r} is not a number") from None
            spec = ParameterSpec(**{k: (row[k] or "").strip() for k in required},
                                 max_value=bounds["max"], min_value=bounds["min"])
            if spec.kind not in VALUE_KINDS:
                raise CatalogError(path, f"line {line}", "kind", f"{spec.kind!r} not in {VALUE_KINDS}")
            if not spec.unit:
                raise CatalogError(path, f"line {line}", "unit", "empty unit")
            key = (spec.table, spec.parameter)
            if key in vocab:
                raise CatalogError(path, f"line {line}", "parameter", f"{spec.parameter!r} defined twice")
            vocab[key] = spec
    return vocab


def check_value(value: float, spec: ParameterSpec) -> str | None:
    """Return a description of what is wrong with ``value`` for ``spec``, or None.

    Parameters
    ----------
    value : float
        The value, in the vocabulary's unit.
    spec : ParameterSpec
        The parameter's vocabulary entry.

    Returns
    -------
    str or None
        The problem (value, allowed range, percent hint), or None when the value is valid.
    """
    problem = _check_value(value, spec)
    if problem is not None and "allowed" not in problem:
        problem = f"{problem}; allowed {spec.allowed_range}"
    return problem


def _check_value(value: float, spec: ParameterSpec) -> str | None:
    if not math.isfinite(value):
        return f"value {value!r} is not finite; allowed {spec.allowed_range}"
    kind = spec.kind
    if kind == "positive" and value <= 0:
        return f"value {value!r} must be > 0"
    if kind == "nonnegative" and value < 0:
        return f"value {value!r} must be >= 0"
    if kind == "fraction" and not 0.0 <= value <= 1.0:
        hint = (
            f"; it looks like a percent given where a fraction is expected (write {value / 100:g}, not {value:g})"
            if 1.0 < value <= 100.0
            else ""
        )
        return f"value {value!r} is outside the fraction range [0, 1]{hint}"
    if kind == "integer" and (value <= 0 or value != int(value)):
        return f"value {value!r} must be a positive integer"
    if kind == "count" and (value < 0 or value != int(value)):
        return f"value {value!r} must be a non-negative integer"
    if kind == "year" and (value != int(value) or not 1990 <= value <= 2100):
        return f"value {value!r} must be a calendar year in [1990, 2100]"
    if kind == "ratio_ge1" and value < 1.0:
        return f"value {value!r} must be >= 1"
    if spec.max_value is not None and value > spec.max_value:
        return (f"value {value:g} {spec.unit} exceeds the plausible maximum {spec.max_value:g} {spec.unit} "
                f"(a unit slip?); allowed {spec.allowed_range}")
    if spec.min_value is not None and value < spec.min_value and not (
        value == 0 and spec.kind in ("nonnegative", "count")
    ):
        return (f"value {value:g} {spec.unit} is below the plausible minimum {spec.min_value:g} {spec.unit} "
                f"(a unit slip?); allowed {spec.allowed_range}")
    return None


def read_tidy(
    path: Path,
    *,
    table: str,
    key_columns: Sequence[str],
    vocabulary: dict[tuple[str, str], ParameterSpec],
    today: dt.date | None = None,
    key_defaults: Mapping[str, str] | None = None,
    key_choices: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Read and validate one tidy catalog file.

    Parameters
    ----------
    path : pathlib.Path
        CSV file with ``key_columns`` followed by :data:`VALUE_COLUMNS`.
    table : str
        Vocabulary table the parameters must belong to.
    key_columns : sequence of str
        Columns that identify the entity (e.g. ``("hardware_id",)``).
    vocabulary : dict
        From :func:`read_vocabulary`.
    today : datetime.date, optional
        Reference date for the "as-of in the future" check (default: today, UTC).
    key_defaults : mapping, optional
        Key columns a file may omit, with the value they then take (the price ``tier`` column
        defaults to ``"standard"``).
    key_choices : mapping, optional
        Key columns restricted to a fixed set of values (e.g. the price tiers).

    Returns
    -------
    pandas.DataFrame
        One row per value with ``value`` as float, ``as_of`` as ``datetime.date`` and a ``file`` and
        ``line`` column for provenance.

    Raises
    ------
    CatalogError
        Naming the file, line, field and problem: missing column, empty key, unknown parameter,
        unit not the vocabulary's, non-numeric value, value out of its kind's range (with a percent
        hint for fractions), missing source, malformed or future as-of date, unknown confidence
        level, or the same key and parameter given twice for the same as-of date.
    """
    today = today or dt.datetime.now(dt.UTC).date()
    defaults = dict(key_defaults or {})
    choices = {k: tuple(v) for k, v in (key_choices or {}).items()}
    cols = (*key_columns, *VALUE_COLUMNS)
    rows: list[dict[str, object]] = []
    seen: dict[tuple[str, ...], int] = {}
    with _open_text(path) as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        for col in cols:
            if col not in header and col not in defaults:
                raise CatalogError(path, "header", col, "required column is missing")
        for line, raw in _rows(path, reader):
            where = f"line {line}"
            if None in raw:
                raise CatalogError(path, where, "row", "more fields than the header has columns")
            row = {k: (raw.get(k) or "").strip() for k in cols}
            for key in key_columns:
                if not row[key] and key in defaults and key not in header:
                    row[key] = defaults[key]
                if not row[key]:
                    raise CatalogError(path, where, key, "empty key")
                if key in choices and row[key] not in choices[key]:
                    raise CatalogError(
                        path, where, key, f"{row[key]!r} is not one of {', '.join(choices[key])}"
                    )
            where = f"line {line} ({', '.join(row[k] for k in key_columns)}, {row['parameter']})"
            spec = vocabulary.get((table, row["parameter"]))
            if spec is None:
                known = sorted(p for t, p in vocabulary if t == table)
                raise CatalogError(
                    path, where, "parameter",
                    f"unknown parameter {row['parameter']!r} for table {table!r}; known: {', '.join(known)}",
                )
            if row["unit"] != spec.unit:
                raise CatalogError(
                    path, where, "unit", f"{row['unit']!r} is not the vocabulary's unit {spec.unit!r}"
                )
            try:
                value = float(row["value"])
            except ValueError:
                raise CatalogError(path, where, "value", f"{row['value']!r} is not a number") from None
            problem = check_value(value, spec)
            if problem:
                raise CatalogError(path, where, "value", problem)
            if not row["source"]:
                raise CatalogError(path, where, "source", "missing source")
            try:
                as_of = dt.date.fromisoformat(row["as_of"])
            except ValueError:
                raise CatalogError(
                    path, where, "as_of", f"{row['as_of']!r} is not an ISO date (YYYY-MM-DD)"
                ) from None
            if as_of > today:
                raise CatalogError(path, where, "as_of", f"{as_of} is in the future (today {today})")
            if row["confidence"] not in CONFIDENCE_LEVELS:
                raise CatalogError(
                    path, where, "confidence", f"{row['confidence']!r} not in {CONFIDENCE_LEVELS}"
                )
            dup_key = (*(row[k] for k in key_columns), row["parameter"], row["as_of"])
            if dup_key in seen:
                raise CatalogError(
                    path, where, "parameter", f"duplicate of line {seen[dup_key]} (same key, parameter and as_of)"
                )
            seen[dup_key] = line
            rows.append({**row, "value": value, "as_of": as_of, "file": str(path), "line": line})
    return pd.DataFrame(rows, columns=[*cols, "file", "line"])


def read_index(
    path: Path, *, key_column: str, required: Sequence[str], booleans: Sequence[str] = ()
) -> pd.DataFrame:
    """Read an index file of names, aliases and categorical attributes (no numbers).

    Parameters
    ----------
    path : pathlib.Path
        CSV with ``key_column``, ``required`` columns and an ``aliases`` column (``;``-separated).
    key_column : str
        Column holding the catalog id.
    required : sequence of str
        Columns that must be present and non-empty.
    booleans : sequence of str
        Columns holding ``true``/``false``.

    Returns
    -------
    pandas.DataFrame
        One row per entity, ``aliases`` as a tuple of str, boolean columns as bool.

    Raises
    ------
    CatalogError
        On a missing column, an empty required field, a malformed boolean or a duplicate id.
    """
    out: list[dict[str, object]] = []
    seen: set[str] = set()
    with _open_text(path) as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        for col in (key_column, *required, "aliases"):
            if col not in header:
                raise CatalogError(path, "header", col, "required column is missing")
        for line, raw in _rows(path, reader):
            if None in raw:
                raise CatalogError(
                    path, f"line {line}", "row",
                    f"{len(header) + len(raw[None])} fields but the header has {len(header)} "  # type: ignore[index]
                    f"columns; extra values {raw[None]!r}",  # type: ignore[index]
                )
            row: dict[str, object] = {k: (v or "").strip() for k, v in raw.items() if k is not None}
            for col in (key_column, *required):
                if not row[col]:
                    raise CatalogError(path, f"line {line}", col, "empty value")
            key = str(row[key_column])
            if key in seen:
                raise CatalogError(path, f"line {line}", key_column, f"duplicate id {key!r}")
            seen.add(key)
            for col in booleans:
                text = str(row.get(col, "")).lower()
                if text not in ("true", "false"):
                    raise CatalogError(path, f"line {line} ({key})", col, f"{text!r} is not true/false")
                row[col] = text == "true"
            row["aliases"] = tuple(a.strip() for a in str(row["aliases"]).split(";") if a.strip())
            row["file"] = str(path)
            out.append(row)
    return pd.DataFrame(out)
