"""A scene's bodies: :class:`BodySpec`, one body resolved and validated, and :class:`BodyTable`, many bodies held as
columns (an array or list per field) that makes a ``BodySpec`` a body only when one is asked for.

A ``run`` of 10⁵ bodies read from a generated file takes every value it needs a column at a time
(:func:`body_column`): a ``BodySpec`` a body (~2.5 µs) and a list gathered from them per field (~10–60 ms each, some
twenty times from the file to the world and the references) would be most of its time outside the stepping loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from spinlab.scene.files.body_columns import BodyColumns, shared_rows

__all__ = ["BodySpec", "BodyTable", "body_column", "with_integrator"]


@dataclass(frozen=True, eq=False)
class BodySpec:
    """One body of a scene, resolved and validated. Arrays are float64 and read-only.

    ``inertia_body`` (3, 3) kg·m², body frame, is the tensor the body turns with: about the ``pivot`` when it
    has one, else about the COM (``inertia_com``). ``com_offset`` (3,) m is the COM in the shape's modelling
    frame. ``position`` (3,) m, ``orientation`` (4,) unit and ``omega_parent`` (3,) rad/s are relative to the
    parent and in its frame (the world's for a root): the file's ``angular_velocity``, whatever frame the file gave
    it in. A kinematic body's ``omega_parent`` is its constant rate.
    """

    name: str
    shape: str
    sizes: dict[str, Any]
    mass: float
    inertia_body: np.ndarray
    inertia_com: np.ndarray
    com_offset: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    omega_parent: np.ndarray
    integrator: str | None = None
    parent: str | None = None
    color: tuple[float, float, float] | None = None
    pivot: np.ndarray | None = None
    kinematic: bool = False


# The fields held as float64 arrays, (N, ...) a column, and each one's shape a body.
_ARRAY_FIELDS = {
    "inertia_body": (3, 3), "inertia_com": (3, 3), "com_offset": (3,), "position": (3,), "orientation": (4,),
    "omega_parent": (3,),
}  # fmt: skip
# The list fields of BodyColumns by BodySpec's names.
_LIST_FIELDS = {"name": "names", "shape": "shapes", "sizes": "sizes", "mass": "masses", "integrator": "integrators",
                "parent": "parents", "color": "colors"}  # fmt: skip


class BodyTable(Sequence[BodySpec]):
    """Every body of a scene read as ``columns`` (scene/files/body_columns.py's :class:`BodyColumns` of all of
    them, in file order: dynamic, without a pivot), a sequence of :class:`BodySpec` as a tuple of them is. The specs
    are made when one is first asked for, all at once, and kept: bit for bit those the per-body reader makes, the
    bodies of equal inertia, COM offset or orientation sharing one read-only array of it. What a run reads of every
    body it reads from the columns (:func:`body_column`), and makes none.

    ``base``: the table this one is a copy of but for the integrators (:meth:`with_integrators`), whose specs are
    the base's (made then if they were not), a body whose integrator changed copied: the arrays are held once."""

    def __init__(self, columns: BodyColumns, base: BodyTable | None = None) -> None:
        self.columns = columns
        self._base = base
        self._specs: tuple[BodySpec, ...] | None = None

    def __len__(self) -> int:
        return len(self.columns.names)

    def __getitem__(self, index):  # an int: a body; a slice: a tuple of them
        return self.specs()[index]

    def __iter__(self):
        return iter(self.specs())

    def specs(self) -> tuple[BodySpec, ...]:
        """Every body's :class:`BodySpec`, made once."""
        if self._specs is None:
            self._specs = self._made()
        return self._specs

    def _made(self) -> tuple[BodySpec, ...]:
        columns = self.columns
        if self._base is not None:  # the base's specs, a body whose integrator changed copied: no array twice
            pairs = zip(self._base.specs(), columns.integrators, strict=True)
            return tuple(body if body.integrator == name else with_integrator(body, name) for body, name in pairs)
        inertia = shared_rows(columns.inertia_body)  # the tensor about the COM too: no pivot in the columns
        return tuple(
            map(
                BodySpec, columns.names, columns.shapes, columns.sizes, columns.masses, inertia, inertia,
                shared_rows(columns.com_offset), columns.position, shared_rows(columns.orientation),
                columns.omega_parent, columns.integrators, columns.parents, columns.colors,
            )
        )  # fmt: skip

    def with_integrators(self, integrators: Sequence[str | None]) -> BodyTable:
        """These bodies with the given integrators, one a body."""
        if list(integrators) == self.columns.integrators:
            return self
        return BodyTable(dataclasses.replace(self.columns, integrators=list(integrators)), base=self)

    def column(self, field: str) -> Any:
        """:func:`body_column` of these bodies, from the columns."""
        count = len(self)
        if field in _ARRAY_FIELDS:
            return getattr(self.columns, field)
        if field == "kinematic":
            return np.zeros(count, dtype=bool)
        if field == "pivot":
            return [None] * count
        return getattr(self.columns, _LIST_FIELDS[field])


def body_column(bodies: Sequence[BodySpec], field: str, rows: Sequence[int] | None = None) -> Any:
    """The ``field`` of every one of ``bodies`` (of those at ``rows`` when given), in order: a float64 array
    (N, ...) for an array field (read-only where it is a whole :class:`BodyTable`'s column), a bool array (N,) for
    ``kinematic``, else a list. A :class:`BodyTable`'s from its columns, without a spec a body."""
    if isinstance(bodies, BodyTable):
        values = bodies.column(field)
        if rows is None:
            return values
        return values[np.asarray(rows, dtype=np.intp)] if isinstance(values, np.ndarray) else [values[i] for i in rows]
    chosen = bodies if rows is None else [bodies[i] for i in rows]
    if field in _ARRAY_FIELDS:
        values = [getattr(body, field) for body in chosen]
        return np.array(values, dtype=float).reshape(-1, *_ARRAY_FIELDS[field])
    if field == "kinematic":
        return np.fromiter((body.kinematic for body in chosen), bool, len(chosen))
    return [getattr(body, field) for body in chosen]


def with_integrator(body: BodySpec, name: str | None) -> BodySpec:
    """``dataclasses.replace(body, integrator=name)`` at a seventh of its cost: a body is a frozen dataclass of
    plain fields, copied as they are."""
    copied = object.__new__(BodySpec)
    copied.__dict__.update(vars(body), integrator=name)
    return copied
