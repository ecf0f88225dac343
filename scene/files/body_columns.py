"""Many ``[[body]]`` tables read at once: each key's values gathered into an array and checked as a whole.

:func:`read_columns` finds the bodies a scene file's per-body reader (``scene_file._read_body``) would accept
with nothing unusual about them — no ``kinematic``, ``pivot``, ``body_angular_velocity`` or 3×3 ``inertia``,
every number well inside the limits — and computes their values with the same float operations, so that the
:class:`~scene.files.scene_file.BodySpec` built from them is bit for bit the one the per-body reader builds. Every
other body (a mistake, an unusual one, a borderline number) is left to the per-body reader, which names the
first mistake exactly as it always has: the checks here only ever decide "certainly fine" or "ask the reader".

Cost: a few list comprehensions over the tables and array operations, ~2 µs a body; the shape's mass
properties are computed once per distinct (shape, mass, sizes).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any, cast

import numpy as np

from spinlab.scene.files.validation import in_range
from spinlab.sim.inertia import DEFINITE_RTOL, SHAPES, SIZE_DEFAULTS, TRIANGLE_RTOL, check_inertia
from spinlab.sim.quaternion import quat_rotate

__all__ = [
    "BodyColumns",
    "BodySource",
    "TableSource",
    "read_columns",
    "frozen",
    "shared_rows",
    "FAST_KEYS",
    "QUAT_MIN_NORM",
    "MISSING",
]

# An orientation shorter than this is a typo, not a rotation.
QUAT_MIN_NORM = 1e-6
# The keys a body read here may have (besides its shape's size keys); any other key sends it to the reader.
FAST_KEYS = frozenset(
    ("name", "shape", "mass", "inertia", "position", "orientation", "angular_velocity", "body_angular_velocity",
     "integrator", "parent", "color")
)  # fmt: skip
MISSING = object()  # the default of a required key
Default = float | tuple[float, ...]  # a key's value where a table does not give it
# Integers beyond this convert to float64 with rounding; left to the reader, which converts one at a time.
_EXACT_INT = 2**53


@dataclass(frozen=True)
class BodyColumns:
    """The bodies ``rows`` (indices into the file's bodies, ascending) and their values, row ``k`` of each array
    for body ``rows[k]``; arrays float64, read-only. The Python lists hold what ``BodySpec`` takes as is."""

    rows: np.ndarray
    names: list[str]
    shapes: list[str]
    sizes: list[dict[str, Any]]
    masses: list[float]
    inertia_body: np.ndarray  # (k, 3, 3)
    inertia_com: np.ndarray  # (k, 3, 3), a separate copy
    com_offset: np.ndarray  # (k, 3)
    position: np.ndarray  # (k, 3)
    orientation: np.ndarray  # (k, 4), unit
    omega_parent: np.ndarray  # (k, 3), relative to the parent, in its frame
    integrators: list[str | None]
    parents: list[str | None]
    colors: list[tuple[float, float, float] | None]


def read_columns(entries: list[object] | BodySource, integrators: tuple[str, ...], first: int = 0) -> BodyColumns:
    """The bodies of ``entries`` (the file's ``body`` array from its body ``first`` on, as parsed tables, or a
    :class:`BodySource` of them read another way) that are certainly valid and usual, read as arrays."""
    source = entries if isinstance(entries, BodySource) else TableSource(entries)
    n = source.count
    ok = source.tables()

    shapes = [shape if type(shape) is str and shape in SHAPES else None for shape in _strings(source, "shape", ok)]
    ok &= np.fromiter((shape is not None for shape in shapes), bool, n)
    allowed: dict[str | None, frozenset[str]] = {shape: FAST_KEYS | SIZE_DEFAULTS[shape].keys() for shape in SHAPES}
    ok &= source.keys_within(shapes, allowed)
    names = _strings(source, "name", ok, default=None)
    if None in names:  # (each pass below only where it may find something: 10^5 bodies, ~10 ms each)
        names = [f"body{index}" if name is None else name for index, name in enumerate(names, start=first)]
    if "" in names:
        ok &= np.fromiter((name != "" for name in names), bool, n)
    integrator_of = _strings(source, "integrator", ok, default=None)
    if integrator_of.count(None) < n:
        known = (name is None or (type(name) is str and name in integrators) for name in integrator_of)
        ok &= np.fromiter(known, bool, n)
    parents = _strings(source, "parent", ok, default=None)

    mass = _numbers(source, "mass", 1, 1.0, ok, positive=True)
    sizes, size_numbers = _sizes(source, shapes, ok)
    given_inertia = source.has("inertia")
    moments = _numbers(source, "inertia", 3, (1.0, 1.0, 1.0), ok)
    ok &= ~given_inertia | _certainly_rigid(moments)
    position = _numbers(source, "position", 3, (0.0, 0.0, 0.0), ok)
    orientation = _numbers(source, "orientation", 4, (1.0, 0.0, 0.0, 0.0), ok, any_magnitude=True)
    # As the reader: scaled by the largest entry, then divided by its norm (vecdot is the dot np.linalg.norm takes).
    largest = np.max(np.abs(orientation), axis=1)
    ok &= largest >= 0.5 * QUAT_MIN_NORM  # the reader's "largest * 2 < QUAT_MIN_NORM" fails, without overflow
    largest[~ok] = 1.0
    orientation[~ok] = (1.0, 0.0, 0.0, 0.0)
    orientation = orientation / largest[:, None]
    orientation = orientation / np.sqrt(np.vecdot(orientation, orientation))[:, None]
    omega = _numbers(source, "angular_velocity", 3, (0.0, 0.0, 0.0), ok)
    omega_body = _numbers(source, "body_angular_velocity", 3, (0.0, 0.0, 0.0), ok)
    in_body = source.has("body_angular_velocity")
    ok &= ~(in_body & source.has("angular_velocity"))
    omega[in_body] = quat_rotate(orientation[in_body], omega_body[in_body])
    ok &= np.all(in_range(omega), axis=1)  # turned into the parent's frame, as the scene holds (and writes) it
    given_color = source.has("color")
    color = _numbers(source, "color", 3, (0.0, 0.0, 0.0), ok)
    ok &= np.all((color >= 0.0) & (color <= 1.0), axis=1)

    inertia, com_offset, derived_ok = _mass_properties(shapes, mass, sizes, size_numbers, ok)
    ok &= given_inertia | derived_ok
    rows = np.flatnonzero(ok)
    inertia_body = np.zeros((rows.size, 3, 3))
    diagonal = np.arange(3)
    inertia_body[:, diagonal, diagonal] = moments[rows]
    from_shape = ~given_inertia[rows]
    inertia_body[from_shape] = inertia[rows][from_shape]
    masses = mass[rows, 0].tolist()
    every = rows.size == n  # every body kept: each list as it is

    def kept(values: list) -> list:
        return values if every else [values[index] for index in rows]

    if given_color.any():
        colors = [tuple(c) if given_color[index] else None for index, c in zip(rows, color[rows].tolist(), strict=True)]
    else:
        colors = [None] * rows.size
    return BodyColumns(
        rows=rows,
        names=kept(names),
        shapes=cast(list[str], kept(shapes)),  # the rows kept have a shape
        sizes=kept(sizes),
        masses=masses,
        inertia_body=frozen(inertia_body),
        inertia_com=frozen(inertia_body.copy()),
        com_offset=frozen(com_offset[rows]),
        position=frozen(position[rows]),
        orientation=frozen(orientation[rows]),
        omega_parent=frozen(omega[rows]),
        integrators=kept(integrator_of),
        parents=kept(parents),
        colors=_interned(colors),
    )


def frozen(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only."""
    array.flags.writeable = False
    return array


def shared_rows(array: np.ndarray) -> list[np.ndarray]:
    """Each row of the read-only ``array`` (k, ...) as an array of its own, the rows of equal bytes one array: a
    scene's bodies mostly share their inertia, COM offset and orientation, and each array a body holds costs
    ~100 B beside its numbers (10^5 bodies, six each: ~70 MB). Equal bytes, so 0.0 and -0.0 stay apart."""
    count = len(array)
    if count == 0:
        return []
    flat = np.ascontiguousarray(array).reshape(count, -1)
    keys = flat.view(np.dtype((np.void, flat.shape[1] * flat.itemsize))).ravel()
    _, firsts, inverse = np.unique(keys, return_index=True, return_inverse=True)
    distinct = [array[index] for index in firsts.tolist()]
    return [distinct[number] for number in inverse.tolist()]


def _interned(values: list) -> list:
    """``values`` with equal (hashable) values one object."""
    seen: dict = {}
    return [seen.setdefault(value, value) for value in values]


class BodySource:
    """The ``[[body]]`` tables as :func:`read_columns` reads them, key by key: :class:`TableSource` for parsed tables;
    scene/files/body_text.py's for tables read from the file's text without them."""

    count: int

    def tables(self) -> np.ndarray:
        """(n,) bool: whether each entry is a table at all."""
        raise NotImplementedError

    def has(self, key: str) -> np.ndarray:
        """(n,) bool: whether each table gives ``key``."""
        raise NotImplementedError

    def keys_within(self, shapes: list[str | None], allowed: dict[str | None, frozenset[str]]) -> np.ndarray:
        """(n,) bool: whether each table's keys are among ``allowed[its shape]`` (``FAST_KEYS`` when it has none)."""
        raise NotImplementedError

    def strings(self, key: str, default: object) -> tuple[list[Any], np.ndarray]:
        """The value at ``key`` of each table, ``default`` where absent, and (n,) bool: whether it is a string or
        absent (where ``default`` is not ``MISSING``: the key is required)."""
        raise NotImplementedError

    def numbers(
        self, key: str, length: int, default: float | tuple[float, ...]
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``(n, length)`` floats at ``key`` (a number when ``length`` is 1, else an array of ``length`` numbers),
        ``default`` where absent, and which rows held such numbers exactly (``None``: all), those that did not
        holding anything."""
        raise NotImplementedError

    def subset(self, rows: list[int]) -> BodySource:
        """The tables ``rows``."""
        raise NotImplementedError


class TableSource(BodySource):
    """Parsed ``[[body]]`` tables (a non-table entry reads as an empty table, not ok)."""

    def __init__(self, entries: list[object]) -> None:
        self.entries = entries
        self.count = len(entries)
        self._tables: list[dict[str, Any]] = [entry if type(entry) is dict else {} for entry in entries]

    def tables(self) -> np.ndarray:
        return np.fromiter((type(entry) is dict for entry in self.entries), bool, self.count)

    def has(self, key: str) -> np.ndarray:
        return np.fromiter((key in table for table in self._tables), bool, self.count)

    def keys_within(self, shapes: list[str | None], allowed: dict[str | None, frozenset[str]]) -> np.ndarray:
        pairs = zip(self._tables, shapes, strict=True)
        return np.fromiter((table.keys() <= allowed.get(shape, FAST_KEYS) for table, shape in pairs), bool, self.count)

    def strings(self, key: str, default: object) -> tuple[list[Any], np.ndarray]:
        values = [table.get(key, default) for table in self._tables]
        strings = ((type(value) is str or (value is default and value is not MISSING)) for value in values)
        return values, np.fromiter(strings, bool, self.count)

    def numbers(
        self, key: str, length: int, default: float | tuple[float, ...]
    ) -> tuple[np.ndarray, np.ndarray | None]:
        values = [table.get(key, default) for table in self._tables]
        if length == 1:  # numbers: each value is a row of one
            plain = None if set(map(type, values)) <= {float} else [_exact_number(x) for x in values]
            array = np.array(values if plain is None else _keep(values, plain, default), dtype=float)[:, None]
        else:
            shaped = [value is default or (type(value) is list and len(value) == length) for value in values]
            if not all(shaped):
                values = _keep(values, shaped, default)
            floats = set(map(type, chain.from_iterable(values))) <= {float}
            plain = None if floats else [all(_exact_number(x) for x in row) for row in values]
            array = np.array(values if plain is None else _keep(values, plain, default), dtype=float)
            array = array.reshape(self.count, length)
            plain = shaped if plain is None else [a and b for a, b in zip(shaped, plain, strict=True)]
        return array, None if plain is None else np.array(plain, dtype=bool)

    def subset(self, rows: list[int]) -> TableSource:
        return TableSource([self.entries[index] for index in rows])


def _strings(source: BodySource, key: str, ok: np.ndarray, default: object = MISSING) -> list[Any]:
    """The string at ``key`` of each table (``default`` when absent); a row without a string is marked not ok."""
    values, strings = source.strings(key, default)
    ok &= strings
    return values


def _numbers(
    source: BodySource,
    key: str,
    length: int,
    default: float | tuple[float, ...],
    ok: np.ndarray,
    *,
    positive: bool = False,
    any_magnitude: bool = False,
) -> np.ndarray:
    """``(n, length)`` floats at ``key`` (a number when ``length`` is 1, else an array of ``length`` numbers), the
    ``default`` where absent; a row the reader might refuse is marked not ok (and holds the default)."""
    array, plain = source.numbers(key, length, default)
    good = np.ones(source.count, dtype=bool) if plain is None else plain
    with np.errstate(invalid="ignore"):
        fine = np.isfinite(array)
        if not any_magnitude:
            fine &= in_range(array)
        if positive:
            fine &= array > 0.0
    good &= np.all(fine, axis=1)
    ok &= good
    array[~good] = default
    return array


def _exact_number(x: object) -> bool:
    """Whether ``x`` is a float, or an integer float64 holds exactly (a bool is neither)."""
    return type(x) is float or (type(x) is int and -_EXACT_INT <= x <= _EXACT_INT)


def _keep(values: list[Any], fine: list[bool], default: Any) -> list[Any]:
    """``values``, each one not ``fine`` replaced by ``default``."""
    return [value if good else default for value, good in zip(values, fine, strict=True)]


def _sizes(source: BodySource, shapes: list[Any], ok: np.ndarray) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Each body's sizes as the reader gives them (its shape's size keys, floats or tuples of floats), bodies of
    equal shape and sizes sharing one (never changed) dict, and the number of that dict (-1: no shape)."""
    sizes: list[dict[str, Any]] = [{}] * source.count  # a body without a shape is not ok: its sizes are not read
    numbers = np.full(source.count, -1, dtype=np.int64)
    shape_of = np.array(shapes, dtype=object)
    for shape, defaults in SIZE_DEFAULTS.items():
        members = np.flatnonzero(shape_of == shape)
        if not members.size:
            continue
        mine = source if members.size == source.count else source.subset(members.tolist())
        mine_ok = ok[members]
        lengths = [len(default) if isinstance(default, tuple) else 1 for default in defaults.values()]
        columns = [
            _numbers(mine, key, length, default, mine_ok, positive=True)
            for (key, default), length in zip(defaults.items(), lengths, strict=True)
        ]
        ok[members] = mine_ok
        distinct, inverse = _distinct_rows(np.concatenate(columns, axis=1))
        edges = np.cumsum([0, *lengths]).tolist()
        shared = [
            {key: tuple(row[start:end]) if end - start > 1 else row[start] for key, start, end in
             zip(defaults, edges[:-1], edges[1:], strict=True)}
            for row in distinct.tolist()
        ]  # fmt: skip
        for index, number in zip(members.tolist(), inverse.tolist(), strict=True):
            sizes[index] = shared[number]
        numbers[members] = inverse + (numbers.max() + 1)
    return sizes, numbers


def _distinct_rows(table: np.ndarray, *, firsts: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``table`` (k, m) (``firsts``: the index of the first of each instead) and the number of
    each row's among them (k,): at once where all are alike, as a generated scene's mostly are."""
    if (table == table[:1]).all():
        return np.zeros(1, dtype=np.intp) if firsts else table[:1], np.zeros(len(table), dtype=np.intp)
    distinct, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    return first if firsts else distinct, inverse.ravel()


def _certainly_rigid(moments: np.ndarray) -> np.ndarray:
    """Principal moments ``(n, 3)`` that ``check_inertia`` certainly accepts, with margins far wider than the
    rounding of its eigen-decomposition; a borderline body is left to it."""
    low, middle, high = np.sort(moments, axis=1).T
    with np.errstate(over="ignore", invalid="ignore"):
        return (low > 2.0 * DEFINITE_RTOL * high) & (low + middle - high >= -0.5 * TRIANGLE_RTOL * high)


def _mass_properties(
    shapes: list[str | None], mass: np.ndarray, sizes: list[dict[str, Any]], numbers: np.ndarray, ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each ok body's shape tensor about the COM, COM offset, and whether that tensor passes ``check_inertia``:
    the shape's function called once per distinct (shape, mass, sizes), told apart by the mass and the number of
    the body's sizes (:func:`_sizes`). An ok body has a shape (``None``: not ok)."""
    n = len(shapes)
    inertia = np.zeros((n, 3, 3))
    com_offset = np.zeros((n, 3))
    passes = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(ok)
    if not rows.size:
        return inertia, com_offset, passes
    keys = np.stack([numbers[rows].astype(float), mass[rows, 0]], axis=1)
    firsts, inverse = _distinct_rows(keys, firsts=True)
    distinct = rows[firsts].tolist()
    tensors, offsets = np.empty((len(distinct), 3, 3)), np.empty((len(distinct), 3))
    fine = np.empty(len(distinct), dtype=bool)
    for number, index in enumerate(distinct):
        properties = SHAPES[shapes[index]](float(mass[index, 0]), **sizes[index])
        tensors[number], offsets[number] = properties.inertia, properties.com_offset
        # The moments a scene holds are what its writer writes: in range (scene/files/validation.py), as given ones are.
        fine[number] = check_inertia(properties.inertia) is None and bool(np.all(in_range(properties.inertia)))
    inertia[rows], com_offset[rows], passes[rows] = tensors[inverse], offsets[inverse], fine[inverse]
    return inertia, com_offset, passes
