"""Hypothesis strategies for what a person (or a hostile one) gives spinlab: scene files and arguments.

A scene is drawn as a document (a dict, see :mod:`tests.fuzz.toml_text`) built on the contract of design.md §Scene files
and scene/files/scene_file.py's key table, mostly valid so that runs get past loading, then spoiled here and there: keys
missing, unknown or foreign to the shape, values of the wrong type or length, extreme numbers (±0, denormals, 1e±308,
nan, inf, integers beyond float64), odd strings (control characters, quotes, commas, line breaks, bidirectional
overrides, 100 000 characters), duplicate names, parent chains and cycles, kinematic tables, pivots under gravity,
``[[kick]]``, ``[[change]]`` and ``[[caption]]`` tables (valid or spoiled), unknown tables, 20 000 nested brackets. The
text may then be mangled (byte-order mark, CRLF, truncation, junk bytes, UTF-16), or the "file" may be no file at all: a
directory, a FIFO, a device, a missing path, a symlink loop, a preset name.

Branch choices are drawn as integers with the plain case at 0, so that Hypothesis shrinks towards it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st

from spinlab.sim.integrators import INTEGRATORS
from tests.fuzz.toml_text import Inline, Raw, Tables, to_toml

__all__ = [
    "SceneFile",
    "INTEGRATOR_NAMES",
    "scene_files",
    "scene_documents",
    "extreme_floats",
    "odd_strings",
    "number_args",
    "output_targets",
    "record_sizes",
    "extra_args",
    "weighted",
]

INTEGRATOR_NAMES = tuple(INTEGRATORS)  # the one registry (house rule 7), as the command line reads it
SHAPES = ("t_handle", "box", "cylinder", "sphere")
SIZE_KEYS = {"t_handle": ("radius", "length", "bar_length"), "box": ("size",), "cylinder": ("radius", "length"),
             "sphere": ("radius",)}  # fmt: skip
PRESETS = ("t_handle", "compare", "stable_major", "stable_minor", "heavy_top", "hierarchy")

_NUDGE = (math.nextafter(1e-50, 0.0), 1e-50, math.nextafter(1e-50, 1.0), math.nextafter(1e50, 0.0), 1e50,
          math.nextafter(1e50, math.inf))  # fmt: skip
FLOAT_EDGES = (
    0.0, 5e-324, 2.2250738585072014e-308, 1e-308, 1e-300, 1e-200, 1e-150, 1e-100, 1e-60, *_NUDGE, 1e-30, 1e-12,
    1e-9, 1e-6, 1e-3, 0.5, 1.0, 3.0, 1e3, 1e6, 1e9, 1e15, 1e30, 1e100, 1e150, 1e154, 1e200, 1e300,
    1.7976931348623157e308, math.inf, math.nan,
)  # fmt: skip
# Spellings TOML allows that a serializer would not choose, and values of types no key takes.
RAW_NUMBERS = ("0x7f", "0o17", "0b101", "1_000.5", "+inf", "-nan", "+0.0", "-0", "1E-5", "1e400", "-1e400",
               "1e-400", "9" * 400, "-" + "9" * 30, "9223372036854775808", "0.0e0")  # fmt: skip
RAW_JUNK = ("1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "true", "[]", "{}", "[[1, 2, 3]]", '[1, "a", true]',
            "[{a = 1}]", '"1.0"', "''")  # fmt: skip
ODD_CHARS = ",\"'\n\r\t\x00\x1b\x7f\x85\u2028\u202e\u200b\\ é☃🙂;=[]{}#."


def extreme_floats() -> st.SearchStrategy[float]:
    """Edges of float64 and of scene/files/limits.py's range, either sign, or any float at all."""
    edges = st.builds(lambda x, negative: -x if negative else x, st.sampled_from(FLOAT_EDGES), st.booleans())
    return st.one_of(edges, st.floats())


def odd_strings() -> st.SearchStrategy[str]:
    """Strings a terminal, a CSV file or a message could choke on (never lone surrogates, which UTF-8 cannot
    carry)."""
    return st.one_of(
        st.just(""),
        st.text(alphabet=ODD_CHARS + "ab", max_size=12),
        st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=24),
        st.sampled_from(("inf", "nan", "-1", "1,2", "a b", " lead", "trail ", "t,body,qw", "=1")),
        st.integers(200, 100_000).map(lambda n: "n" * n),
    )


@dataclass(frozen=True)
class Spoil:
    """How far a drawn document strays from a valid one; all zero draws a valid scene. ``numbers``: 0 sensible
    values, 1 also the edges of scene/files/limits.py's range (1e±50, ±0) and their neighbours, 2 any float or integer;
    ``types``: values of the wrong type or length; ``structure``: keys missing, unknown or misplaced."""

    numbers: int = 0
    types: bool = False
    structure: bool = False


_IN_RANGE = tuple(x for x in FLOAT_EDGES if x == 0.0 or 1e-50 <= abs(x) <= 1e50)


@st.composite
def _number(draw, spoil: Spoil, positive: bool = False):
    """A number for a key: sensible most of the time, else extreme, oddly spelled or not a number."""
    branch = draw(st.integers(0, 19))
    if branch < 12 or spoil.numbers == 0 and not spoil.types:
        low = 0.01 if positive else -20.0
        # Rounded: Hypothesis likes the ends of a float range, and 5e-324 is not a sensible value.
        return draw(st.floats(low, 20.0).map(lambda x: round(x, 6) or 0.0) | st.integers(1 if positive else -5, 5))
    if branch < 16 and spoil.numbers >= 1:
        x = draw(st.sampled_from(_IN_RANGE if spoil.numbers == 1 else FLOAT_EDGES))
        return x if positive or not draw(st.booleans()) else -x
    if branch < 17 and spoil.numbers >= 2:
        return draw(st.floats())
    if branch < 18 and spoil.numbers >= 2:
        return draw(st.sampled_from((10**400, -(10**400), 2**63, 2**64, -(2**63), 0, -1)))
    if branch < 19 and spoil.numbers >= 2:
        return Raw(draw(st.sampled_from(RAW_NUMBERS)))
    if spoil.types:
        return draw(_junk())
    return draw(st.floats(0.5, 2.0))


@st.composite
def _junk(draw, depth_only: bool = False):
    """A value of the wrong type, or nested deeper than anything reads."""
    branch = draw(st.integers(0, 5))
    if branch == 0 or depth_only:
        depth = draw(st.sampled_from((2, 30, 300, 1_000, 3_000, 20_000)))
        opening, closing = draw(st.sampled_from((("[", "]"), ("{a = ", "}"), ("[{a = ", "}]"))))
        return Raw(opening * depth + "1" + closing * depth)
    if branch == 1:
        return draw(odd_strings())
    if branch == 2:
        return draw(st.booleans())
    if branch == 3:
        return Inline({"x": 1.0})
    return Raw(draw(st.sampled_from(RAW_JUNK)))


@st.composite
def _vector(draw, spoil: Spoil, length: int, positive: bool = False, unit_interval: bool = False):
    branch = draw(st.integers(0, 19)) if spoil.types else 0
    if branch < 17:
        if unit_interval and draw(st.integers(0, 3)):
            return draw(st.lists(st.floats(0.0, 1.0).map(lambda x: round(x, 6)), min_size=length, max_size=length))
        return draw(st.lists(_number(spoil, positive), min_size=length, max_size=length))
    if branch == 17:
        wrong = draw(st.sampled_from((0, 1, length - 1, length + 1, 9, 1_000)))
        return draw(st.lists(_number(spoil, positive), min_size=wrong, max_size=wrong))
    if branch == 18:
        return [draw(st.lists(_number(spoil, positive), min_size=length, max_size=length))]
    return draw(_junk())


@st.composite
def _quaternion(draw, spoil: Spoil):
    branch = draw(st.integers(0, 3))
    if branch == 0:
        return [1.0, 0.0, 0.0, 0.0]
    if branch == 1 or spoil == Spoil():
        q = draw(st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda v: sum(x * x for x in v) > 0.1))
        norm = math.sqrt(sum(x * x for x in q))
        return [x / norm for x in q]
    return draw(_vector(spoil, 4))


@st.composite
def _inertia(draw, spoil: Spoil):
    branch = draw(st.integers(0, 4)) if spoil != Spoil() else 0
    if branch == 0:  # principal moments that satisfy the triangle inequality
        a, b = draw(st.floats(0.1, 5.0)), draw(st.floats(0.1, 5.0))
        return [a, b, draw(st.floats(abs(a - b) + 0.01, a + b))]
    if branch == 1:
        return draw(_vector(spoil, 3, positive=True))
    if branch == 2 or not spoil.types:  # a symmetric tensor from three rows
        d = draw(st.lists(_number(spoil, positive=True), min_size=3, max_size=3))
        off = draw(st.lists(_number(spoil), min_size=3, max_size=3))
        return [[d[0], off[0], off[1]], [off[0], d[1], off[2]], [off[1], off[2], d[2]]]
    if branch == 3:
        return draw(st.lists(st.lists(_number(spoil), min_size=0, max_size=4), min_size=0, max_size=4))
    return draw(_junk())


def _names(spoil: Spoil) -> st.SearchStrategy:
    plain = st.sampled_from(("handle", "top", "wheel", "a", "b"))
    return st.one_of(plain, odd_strings(), _junk()) if spoil.types else st.one_of(plain, odd_strings())


def _sometimes(draw, chance: int, of: int = 10) -> bool:
    return draw(st.integers(0, of - 1)) < chance


@st.composite
def _body(draw, spoil: Spoil, name, parent, gravity_set: bool):
    body: dict = {}
    if name is not None:
        body["name"] = name
    shape = draw(st.sampled_from(SHAPES))
    if spoil.types and _sometimes(draw, 1):
        shape = draw(st.one_of(odd_strings(), _junk()))
    if not (spoil.structure and _sometimes(draw, 1)):
        body["shape"] = shape
    for key in SIZE_KEYS.get(shape, ()) if isinstance(shape, str) else ():
        if draw(st.booleans()):
            body[key] = draw(_vector(spoil, 3, positive=True) if key == "size" else _number(spoil, positive=True))
    integrators = st.sampled_from(INTEGRATOR_NAMES)
    optional = {
        "mass": (4, lambda: _number(spoil, positive=True)),
        "inertia": (3, lambda: _inertia(spoil)),
        "position": (3, lambda: _vector(spoil, 3)),
        "orientation": (4, lambda: _quaternion(spoil)),
        "angular_velocity": (6, lambda: _vector(spoil, 3)),
        "body_angular_velocity": (2, lambda: _vector(spoil, 3)),
        "integrator": (3, lambda: integrators | odd_strings() | _junk() if spoil.types else integrators),
        "color": (2, lambda: _vector(spoil, 3, unit_interval=True)),
        "pivot": (4 if gravity_set else 1, lambda: _vector(spoil, 3)),
    }
    for key, (chance, strategy) in optional.items():
        if _sometimes(draw, chance):
            body[key] = draw(strategy())
    if not spoil.structure and "body_angular_velocity" in body:
        body.pop("angular_velocity", None)
    if parent is not None:
        body["parent"] = parent
    if _sometimes(draw, 1, 6):
        kinematic = {"angular_velocity": draw(_vector(spoil, 3))} if draw(st.integers(0, 3)) else {}
        if spoil.structure and _sometimes(draw, 1, 4):
            kinematic[draw(st.sampled_from(("omega", "position", "angular_velocity ")))] = 1.0
        if not (spoil.structure and _sometimes(draw, 1, 3)):  # a kinematic body keeps none of the dynamic keys
            for key in ("angular_velocity", "body_angular_velocity", "integrator", "pivot"):
                body.pop(key, None)
        body["kinematic"] = Inline(kinematic) if draw(st.booleans()) else kinematic
        if spoil.types and _sometimes(draw, 1):
            body["kinematic"] = draw(_junk())
    if spoil.structure and _sometimes(draw, 1, 5):  # a key the body does not take: unknown, another shape's
        stray = st.sampled_from(("radius", "size", "bar_length", "length", "massa", "Name", "omega", ""))
        body[draw(stray | st.text(max_size=5))] = draw(_number(spoil))
    return body


@st.composite
def _kick(draw, spoil: Spoil, names: list):
    """A ``[[kick]]`` table (scene/running/kicks.py) on one of ``names`` (or on no body, spoiled), mostly valid."""
    body = draw(st.sampled_from(names)) if not spoil.structure or draw(st.integers(0, 3)) else draw(_names(spoil))
    time = draw(_number(spoil))
    if _sometimes(draw, 1):  # far beyond any run (kick_step's search by ones never ended past 2**52 steps)
        time = draw(st.sampled_from((1e15, 7.5e16, 1e25, 1e35, 1e50, 2.0**52 / 60.0, 2.0**53 / 60.0)))
    kick = {"body": body, "time": abs(time) if isinstance(time, float | int) and not spoil.numbers else time}
    if draw(st.integers(0, 3)):
        kick["angular_impulse"] = draw(_vector(spoil, 3))
    if _sometimes(draw, 3):
        kick["impulse"] = draw(_vector(spoil, 3))
        if draw(st.booleans()):
            kick["point"] = draw(_vector(spoil, 3))
    if _sometimes(draw, 2):
        kick["counteract_children"] = draw(st.booleans()) if not spoil.types else draw(_junk())
    if spoil.structure and _sometimes(draw, 1, 4):
        kick[draw(st.sampled_from(("at", "torque", "body ")))] = 1.0
    return kick


@st.composite
def _change(draw, spoil: Spoil):
    """A ``[[change]]`` table (scene/running/changes.py), mostly valid: the gyroscopic term switched at a time."""
    time = draw(_number(spoil))
    if _sometimes(draw, 1):  # far beyond any run, as kicks may be
        time = draw(st.sampled_from((1e25, 1e50, 2.0**53 / 60.0)))
    change = {"time": abs(time) if isinstance(time, float | int) and not spoil.numbers else time}
    change["gyroscopic"] = draw(st.booleans()) if not spoil.types else draw(st.one_of(st.booleans(), _junk()))
    if spoil.structure and _sometimes(draw, 1, 4):
        del change[draw(st.sampled_from(("time", "gyroscopic")))]
    if spoil.structure and _sometimes(draw, 1, 4):
        change[draw(st.sampled_from(("integrator", "at", "gyro")))] = 1.0
    return change


@st.composite
def _camera(draw, spoil: Spoil, names: list, time: float):
    """A ``[[camera]]`` table (scene/files/camera_table.py) at ``time`` s, mostly valid: some of its values, a target
    a body's name or a point."""
    key: dict = {"time": time if not spoil.numbers or draw(st.integers(0, 3)) else draw(_number(spoil))}
    ranges = {"azimuth": (-3600.0, 3600.0), "elevation": (-89.0, 89.0), "distance": (1e-3, 1e3), "fov": (5.0, 120.0)}
    for name, (low, high) in ranges.items():
        if draw(st.booleans()):
            key[name] = draw(st.floats(low, high)) if not spoil.numbers else draw(_number(spoil))
    if names and _sometimes(draw, 2):
        key["target"] = draw(st.sampled_from(names)) if draw(st.booleans()) else draw(_vector(spoil, 3))
    if spoil.types and _sometimes(draw, 1, 4):
        key[draw(st.sampled_from(("time", "fov", "target")))] = draw(_junk())
    if spoil.structure and _sometimes(draw, 1, 4):
        key[draw(st.sampled_from(("zoom", "at", "camera")))] = 1.0
    return key


@st.composite
def _caption(draw, spoil: Spoil, names: list[str]):
    """A ``[[caption]]`` table (scene/files/caption_table.py), mostly valid: words over the views for a while, at the
    bottom, the top or beside a body."""
    time, duration = draw(_number(spoil)), draw(_number(spoil, positive=True))
    caption = {"time": abs(time) if isinstance(time, float | int) and not spoil.numbers else time, "duration": duration}
    caption["text"] = draw(odd_strings()) if spoil.types else draw(st.sampled_from(("Watch", "Two\nlines", "ω × L")))
    if _sometimes(draw, 2):
        places = ["bottom", "top", *names]
        caption["position"] = draw(st.one_of(odd_strings(), _junk()) if spoil.types else st.sampled_from(places))
    if spoil.structure and _sometimes(draw, 1, 4):
        del caption[draw(st.sampled_from(("time", "duration", "text")))]
    return caption


@st.composite
def scene_documents(draw):
    """A scene as a document for :func:`to_toml`, with the names of its bodies (``None`` where missing)."""
    # About half the documents are valid, so that runs get past loading and their outputs are checked.
    numbers = draw(weighted((4, st.just(0)), (2, st.just(1)), (2, st.just(2))))
    spoil = Spoil(numbers, draw(st.integers(0, 4)) == 4, draw(st.integers(0, 4)) == 4)
    document: dict = {}
    gravity_set = False
    if draw(st.integers(0, 2)):
        settings: dict = {}
        if draw(st.booleans()):
            settings["gravity"] = draw(_vector(spoil, 3)) if draw(st.booleans()) else [0.0, 0.0, -9.81]
            gravity_set = True
        if draw(st.booleans()):
            settings["dt"] = draw(_number(spoil, positive=True))
        if _sometimes(draw, 1, 4):
            settings["description"] = draw(st.one_of(odd_strings(), _junk()) if spoil.types else odd_strings())
        if spoil.structure and _sometimes(draw, 1, 4):
            settings[draw(st.sampled_from(("gravitiy", "h", "fps", "dt ")))] = 1.0
        document["scene"] = draw(_junk()) if spoil.types and _sometimes(draw, 1) else settings

    layout = draw(st.integers(0, 19))
    if layout < 15:
        count = draw(st.integers(1, 5))
    elif layout < 17:
        count = 0 if spoil.structure else 1
    else:
        count = draw(st.sampled_from((40, 300, 2_000)))
    simple = count > 5
    if simple or draw(st.booleans()):
        names = [f"b{i}" for i in range(count)]
    else:
        names = [draw(_names(spoil)) if draw(st.integers(0, 3)) else f"b{i}" for i in range(count)]
    bodies = []
    for i in range(count):
        name = None if spoil.structure and _sometimes(draw, 1, 8) else names[i]
        mode = draw(st.integers(0, 9))
        if simple:  # a long chain (closed on itself when the last body is the first's parent)
            parent = names[i - 1] if i > 0 else (names[-1] if mode == 0 else None)
        elif mode < 6 or i == 0 and mode < 8:
            parent = None
        elif mode < 8 and i > 0:
            parent = names[draw(st.integers(0, i - 1))]
        else:  # any body, itself included (a cycle), or a name no body has
            parent = draw(st.sampled_from(names)) if mode < 9 or not spoil.structure else draw(_names(spoil))
        if simple:
            body = {"name": names[i], "shape": "sphere", "angular_velocity": [0.0, 1.0, 0.5], "parent": parent}
            if parent is None:
                del body["parent"]
        else:
            body = draw(_body(spoil, name, parent, gravity_set))
        bodies.append(body)
    document["body"] = Tables(bodies)
    if spoil.types and _sometimes(draw, 1):
        document["body"] = draw(st.one_of(_junk(), st.just([Inline(b) for b in bodies[:2]])))
    if names and _sometimes(draw, 3):
        document["kick"] = Tables([draw(_kick(spoil, names)) for _ in range(draw(st.integers(1, 3)))])
    if _sometimes(draw, 2):
        document["change"] = Tables([draw(_change(spoil)) for _ in range(draw(st.integers(1, 3)))])
    if _sometimes(draw, 2):
        known = [name for name in names if isinstance(name, str)]
        times = sorted(draw(st.lists(st.floats(0.0, 5.0), min_size=1, max_size=3, unique=True)))
        document["camera"] = Tables([draw(_camera(spoil, known, time)) for time in times])
    if _sometimes(draw, 2):
        shown = [name for name in names if isinstance(name, str)]
        document["caption"] = Tables([draw(_caption(spoil, shown)) for _ in range(draw(st.integers(1, 3)))])
    if spoil.structure and _sometimes(draw, 1, 4):
        document[draw(st.sampled_from(("kick", "change", "camera", "bodies", "Body", "scenes")))] = Tables([{"t": 1.0}])
    if spoil.structure and _sometimes(draw, 1, 6):
        document["extra"] = draw(_number(spoil))
    return document, [b.get("name", f"body{i}") if isinstance(b, dict) else None for i, b in enumerate(bodies)]


class SceneFile:
    """What the SCENE argument points at. ``kind``: ``file`` (``data`` written to ``scene.toml``), ``dir``,
    ``fifo``, ``missing``, ``device`` (``arg`` is its path), ``loop`` (a symlink to itself), ``preset`` (``arg``
    is a preset name or a junk name). ``mangled`` says how the text was spoiled after writing (``bom`` and
    ``crlf`` keep it valid TOML)."""

    def __init__(self, kind: str, data: bytes = b"", arg: str = "", mangled: str = "") -> None:
        self.kind, self.data, self.arg, self.mangled = kind, data, arg, mangled

    def __repr__(self) -> str:
        data = self.data if len(self.data) <= 1500 else self.data[:1500] + b"...(%d bytes)" % len(self.data)
        return f"SceneFile(kind={self.kind!r}, arg={self.arg!r}, mangled={self.mangled!r}, data={data!r})"

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))


@st.composite
def scene_files(draw, allow_special: bool = True):
    branch = draw(st.integers(0, 39)) if allow_special else 0
    if branch >= 34:
        kind = ("dir", "fifo", "missing", "device", "loop", "preset")[branch - 34]
        if kind == "device":
            return SceneFile("device", arg=draw(st.sampled_from(("/dev/null", "/dev/zero", "/dev/urandom"))))
        if kind == "preset":
            arg = draw(st.sampled_from(PRESETS) | odd_strings().filter(lambda s: s and not s.startswith("-")))
            return SceneFile("preset", arg=arg)
        return SceneFile(kind)
    document, names = draw(scene_documents())
    text = to_toml(document)
    mangle = draw(st.integers(0, 24)) if allow_special else 0
    if mangle < 14 or mangle > 19:
        return SceneFile("file", text.encode())
    if mangle == 14:
        return SceneFile("file", b"\xef\xbb\xbf" + text.encode(), mangled="bom")
    if mangle == 15:
        return SceneFile("file", text.replace("\n", "\r\n").encode(), mangled="crlf")
    data = text.encode()
    if mangle == 16:
        cut = draw(st.integers(0, len(data)))
        return SceneFile("file", data[:cut], mangled="truncated")
    if mangle == 17:
        at = draw(st.integers(0, len(data)))
        return SceneFile("file", data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at:], mangled="junk")
    if mangle == 18:
        return SceneFile("file", text.encode(draw(st.sampled_from(("utf-16", "utf-32", "latin-1"))), "replace"),
                         mangled="encoding")  # fmt: skip
    return SceneFile("file", draw(st.binary(max_size=200)), mangled="binary")


def weighted(*choices: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """One of ``(weight, strategy)`` pairs, chosen in proportion to the weights (the first shrinks best)."""
    total = sum(weight for weight, _ in choices)

    def pick(n: int) -> st.SearchStrategy:
        for weight, strategy in choices:
            if n < weight:
                return strategy
            n -= weight
        raise AssertionError(n)

    return st.integers(0, total - 1).flatmap(pick)


def number_args(valid: st.SearchStrategy[float]) -> st.SearchStrategy[str]:
    """A number argument as typed: from ``valid`` mostly, else an extreme float or text that is not quite a
    number."""
    junk = st.sampled_from(("", " ", "1e", "--1", "0x10", "1_0", "١", "−1", "1,5", "nan", "-inf", "infinity",
                            "1e309", "-0", "0", "5e-324", "1e-51", "1e51", "\x01", "1\n"))  # fmt: skip
    return weighted((6, valid.map(repr)), (2, extreme_floats().map(repr)), (2, junk))


def output_targets(suffix: str) -> st.SearchStrategy[str]:
    """Where an output goes, relative to the output folder (symbolic names the test resolves): a plain file, a
    file already there, a missing directory, the folder itself, the scene being read, or a device."""
    plain = st.sampled_from((f"out{suffix}", f"o u,t\n{suffix}", f"é☃{suffix}", "noext"))
    special = st.sampled_from(("<existing>", "<missing-dir>", "<dir>", "<scene>", "<scene-relative>", "/dev/null",
                               "/dev/full", "<link>", "<dangling-link>", "<fifo>"))  # fmt: skip
    return weighted((3, plain), (1, special))


def record_sizes() -> st.SearchStrategy[str]:
    valid = st.tuples(st.integers(16, 96), st.integers(16, 96)).map(lambda s: f"{s[0]}x{s[1]}")
    junk = st.sampled_from(("0x0", "64", "64x", "x64", "64X64", "-64x64", " 64x64", "64 x 64", "15x16", "1e3x64",
                            "64x64x64", "١٢٨x64", "99999x99999", "7681x4320", "", "ax b"))  # fmt: skip
    return weighted((4, valid), (1, junk))


def extra_args() -> st.SearchStrategy[list[str]]:
    """Arguments a person might add by mistake, usually none."""
    tokens = st.sampled_from(("--bogus", "x", "--no-gyroscopic", "--", "-h", "--dt", "--integrator=euler",
                              "--dur", "-"))  # fmt: skip
    return weighted((9, st.just([])), (1, st.lists(tokens, min_size=1, max_size=2)))
