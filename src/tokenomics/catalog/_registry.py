"""The catalog registry: bundled tables, user-added files, lookups by id or alias."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pandas as pd

from tokenomics._validate import normalize_name, unknown_name_error
from tokenomics.catalog._tidy import CatalogError, ParameterSpec, read_index, read_tidy, read_vocabulary


@dataclass(frozen=True)
class TableSpec:
    """Where a catalog table lives and how its rows are keyed.

    Attributes
    ----------
    name : str
        Table name used by :func:`add_catalog_file`.
    relpath : str
        Path of the bundled file below the data directory.
    keys : tuple of str
        Key columns.
    kind : str
        ``"values"`` (tidy, validated against the vocabulary) or ``"index"`` (names, aliases and
        categorical attributes).
    vocabulary_table : str
        Vocabulary table of a values file.
    required : tuple of str
        Required non-empty columns of an index file.
    booleans : tuple of str
        Boolean columns of an index file.
    index_table : str
        For a values file, the index table its first key column must refer to (a user row for
        an id that no index knows is an error, never silently unused).
    key_defaults : tuple of (str, str)
        Key columns a file may omit and the value they then take.
    key_choices : tuple of (str, tuple of str)
        Key columns restricted to a fixed set of values.
    """

    name: str
    relpath: str
    keys: tuple[str, ...]
    kind: str
    vocabulary_table: str = ""
    required: tuple[str, ...] = ()
    booleans: tuple[str, ...] = ()
    index_table: str = ""
    key_defaults: tuple[tuple[str, str], ...] = ()
    key_choices: tuple[tuple[str, tuple[str, ...]], ...] = ()


PRICE_TIERS: tuple[str, ...] = ("standard", "batch", "flex", "priority", "fast", "off-peak")
"""Price tiers of ``pricing/api_prices.csv``: ``standard`` (on-demand list price), ``batch``
(asynchronous, typically within 24 h), ``flex`` (slower, interruptible synchronous), ``priority``
(same model, guaranteed capacity), ``fast`` (a high-speed serving of the same model, e.g. Moonshot's
``-highspeed`` or a provider's ``fast``/``turbo`` endpoint) and ``off-peak`` (time-of-day discount)."""

TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        TableSpec("hardware_index", "hardware/index.csv", ("hardware_id",), "index",
                  required=("name", "vendor", "family", "accelerator_kind", "system")),
        TableSpec("hardware", "hardware/specs.csv", ("hardware_id",), "values", "hardware",
                  index_table="hardware_index"),
        TableSpec("model_index", "models/index.csv", ("model_id",), "index",
                  required=("name", "developer", "attention_type", "native_weight_precision",
                            "open_weights", "first_party_provider"),
                  booleans=("open_weights",)),
        TableSpec("model", "models/architectures.csv", ("model_id",), "values", "model", index_table="model_index"),
        TableSpec("price", "pricing/api_prices.csv", ("model_id", "provider", "tier"), "values", "price",
                  index_table="model_index", key_defaults=(("tier", "standard"),),
                  key_choices=(("tier", PRICE_TIERS),)),
        TableSpec("tco_system", "tco/systems.csv", ("hardware_id",), "values", "tco_system",
                  index_table="hardware_index"),
        TableSpec("tco_profile_index", "tco/profile_index.csv", ("profile_id",), "index",
                  required=("name", "description")),
        TableSpec("tco_profile", "tco/profiles.csv", ("profile_id",), "values", "tco_profile",
                  index_table="tco_profile_index"),
        TableSpec("published_tco", "tco/published.csv", ("hardware_id", "vintage", "tier"), "values",
                  "published_tco", index_table="hardware_index"),
    )
}


def data_dir() -> Path:
    """Return the directory holding the bundled catalogs.

    In an installed wheel the data live in ``tokenomics/data`` (found through
    :mod:`importlib.resources`); in a source checkout, in the top-level ``data/`` folder.

    Returns
    -------
    pathlib.Path
        Directory containing ``parameters.csv``.

    Raises
    ------
    FileNotFoundError
        If neither location holds ``parameters.csv``.
    """
    packaged = Path(str(resources.files("tokenomics"))) / "data"
    if (packaged / "parameters.csv").is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "data"
    if (checkout / "parameters.csv").is_file():
        return checkout
    raise FileNotFoundError(f"bundled catalogs not found in {packaged} or {checkout}")


@dataclass
class Registry:
    """Loaded catalog tables, bundled first, then user files in the order they were added.

    Tables are read lazily on first use and cached.
    """

    extra_files: dict[str, list[Path]] = field(default_factory=dict)
    _frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    _vocab: dict[tuple[str, str], ParameterSpec] | None = None
    _lookups: dict[str, tuple[dict[str, set[str]], list[str]]] = field(default_factory=dict)
    _entities: dict[tuple[object, ...], object] = field(default_factory=dict)
    generation: int = 0
    """Counts the changes of the loaded catalogs (a file added, a reset)."""

    def vocabulary(self) -> dict[tuple[str, str], ParameterSpec]:
        """Return the parameter vocabulary (bundled ``data/parameters.csv``)."""
        if self._vocab is None:
            self._vocab = read_vocabulary(data_dir() / "parameters.csv")
        return self._vocab

    def _read(self, spec: TableSpec, path: Path, origin: str) -> pd.DataFrame:
        if spec.kind == "index":
            frame = read_index(path, key_column=spec.keys[0], required=spec.required,
                               booleans=spec.booleans)
        else:
            frame = read_tidy(path, table=spec.vocabulary_table, key_columns=spec.keys,
                              vocabulary=self.vocabulary(), key_defaults=dict(spec.key_defaults),
                              key_choices=dict(spec.key_choices))
            if spec.index_table:
                self._check_ids(spec, frame, path)
        frame["origin"] = origin
        return frame

    def _check_ids(self, spec: TableSpec, frame: pd.DataFrame, path: Path) -> None:
        """Raise if a values row names an id that its index table does not know."""
        key = spec.keys[0]
        known = set(self.frame(spec.index_table)[key].astype(str))
        unknown = frame[~frame[key].astype(str).isin(known)]
        if len(unknown):
            row = unknown.iloc[0]
            close = unknown_name_error(key, row[key], known).args[0]
            raise CatalogError(
                path, f"line {row['line']}", key,
                f"{close}; add the id to the {spec.index_table!r} table first "
                f"(add_catalog_file(..., table={spec.index_table!r}))",
            )

    def frame(self, table: str) -> pd.DataFrame:
        """Return the merged rows of a table (bundled, then user-added).

        Parameters
        ----------
        table : str
            A name in :data:`TABLES`.

        Returns
        -------
        pandas.DataFrame
            All rows; for index tables a user row replaces the bundled row of the same id.
        """
        if table not in self._frames:
            spec = TABLES[table]
            parts = [self._read(spec, data_dir() / spec.relpath, "bundled")]
            parts += [self._read(spec, p, "user") for p in self.extra_files.get(table, [])]
            merged = pd.concat(parts, ignore_index=True)
            if spec.kind == "index":
                merged = merged.drop_duplicates(subset=list(spec.keys), keep="last")
            self._frames[table] = merged.reset_index(drop=True)
        return self._frames[table]

    def add(self, path: Path, table: str) -> None:
        """Validate a user file and add it to a table.

        Parameters
        ----------
        path : pathlib.Path
            CSV in the table's format.
        table : str
            A name in :data:`TABLES`.

        Raises
        ------
        KeyError
            For an unknown table name.
        FileNotFoundError
            If the file does not exist.
        CatalogError
            If the file is malformed (nothing is added then).
        """
        if table not in TABLES:
            raise unknown_name_error("catalog table", table, TABLES)
        if not path.is_file():
            raise FileNotFoundError(f"catalog file not found: {path}")
        self._read(TABLES[table], path, "user")  # validate before registering
        self.extra_files.setdefault(table, []).append(path)
        self._frames.pop(table, None)
        self._lookups.clear()
        self._entities.clear()
        self.generation += 1

    def reset(self) -> None:
        """Forget user-added files and cached tables."""
        self.extra_files.clear()
        self._frames.clear()
        self._vocab = None
        self._lookups.clear()
        self._entities.clear()
        self.generation += 1

    def lookup(self, table: str) -> tuple[dict[str, set[str]], list[str]]:
        """Return the normalised-name -> ids map of an index table and all accepted names."""
        if table not in self._lookups:
            frame = self.frame(table)
            key_col = TABLES[table].keys[0]
            mapping: dict[str, set[str]] = {}
            names: list[str] = []
            for row in frame.to_dict("records"):
                ident = str(row[key_col])
                for alias in (ident, str(row.get("name", "")), *row["aliases"]):
                    if alias:
                        mapping.setdefault(normalize_name(alias), set()).add(ident)
                        names.append(alias)
            self._lookups[table] = (mapping, names)
        return self._lookups[table]


REGISTRY = Registry()


def matching_ids(table: str, name: object) -> set[str]:
    """Return the ids in an index table that ``name`` matches (id or alias, case/punctuation-insensitive).

    Parameters
    ----------
    table : str
        Index table name, e.g. ``"hardware_index"``.
    name : object
        The name to look up.

    Returns
    -------
    set of str
        No id (unknown), one (resolved) or several (an ambiguous alias); never raises for a name
        (for a caller trying several spellings of one name).

    Raises
    ------
    KeyError
        If ``table`` is not an index table.

    Examples
    --------
    >>> matching_ids("hardware_index", "GB200 NVL72")
    {'gb200-nvl72'}
    >>> matching_ids("hardware_index", "no such system")
    set()
    """
    lookup, _ = REGISTRY.lookup(table)
    return set(lookup.get(normalize_name(str(name)), ()))


def resolve(table: str, name: object, kind: str) -> str:
    """Return the id in an index table matching ``name`` (id or alias, case/punctuation-insensitive).

    Parameters
    ----------
    table : str
        Index table name, e.g. ``"hardware_index"``.
    name : object
        The user's name.
    kind : str
        Word used in the error message (``"hardware"``, ``"model"``, ...).

    Returns
    -------
    str
        The catalog id.

    Raises
    ------
    KeyError
        If nothing matches or an alias is ambiguous; the message lists close valid names.
    """
    hits = matching_ids(table, name)
    if len(hits) == 1:
        return next(iter(hits))
    if len(hits) > 1:
        raise KeyError(f"{kind} name {name!r} is ambiguous: matches {sorted(hits)}")
    _, names = REGISTRY.lookup(table)
    frame = REGISTRY.frame(table)
    raise unknown_name_error(kind, name, names, ids=frame[TABLES[table].keys[0]].astype(str))


def entity_rows(table: str, key: dict[str, str], as_of: dt.date | None = None) -> pd.DataFrame:
    """Return the value rows of one entity, one per parameter (the latest, user rows last).

    Parameters
    ----------
    table : str
        Values table name.
    key : dict
        Key column -> value.
    as_of : datetime.date, optional
        Ignore rows dated after this day.

    Returns
    -------
    pandas.DataFrame
        One row per parameter: the user's row if any, else the latest-dated bundled row.
    """
    frame = REGISTRY.frame(table)
    mask = pd.Series(True, index=frame.index)
    for col, val in key.items():
        mask &= frame[col] == val
    rows = frame[mask]
    if as_of is not None:
        rows = rows[rows["as_of"] <= as_of]
    rows = rows.assign(_user=rows["origin"] == "user").sort_values(["_user", "as_of"], kind="stable")
    return rows.drop_duplicates("parameter", keep="last").drop(columns="_user")


def require_rows(rows: pd.DataFrame, kind: str, key: dict[str, str], needed: Sequence[str]) -> None:
    """Raise if an entity lacks required parameters.

    Parameters
    ----------
    rows : pandas.DataFrame
        From :func:`entity_rows`.
    kind : str
        Word for the message.
    key : dict
        The entity key, for the message.
    needed : sequence of str
        Parameters that must be present.

    Raises
    ------
    CatalogError
        Naming the file, the entity and the first missing parameter.
    """
    have = set(rows["parameter"])
    for p in needed:
        if p not in have:
            where = ", ".join(f"{k}={v}" for k, v in key.items())
            files = sorted(set(rows["file"])) or ["(no rows)"]
            raise CatalogError(files[0], where, p, f"required {kind} parameter is missing")
