"""A large scene file read in pieces (scene/files/toml_file.py's body_pieces, scene/files/scene_file.py's
_scene_in_pieces) gives the scene the whole file gives, bit for bit, and every mistake as the whole file reports it. The
pieces are made small here (a few kB) so that small files take the path a 10^5-body file takes."""

from __future__ import annotations

import functools

import pytest

import spinlab.scene.files.scene_file as scene_file
import spinlab.scene.files.toml_file as toml_file
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError
from tests.scene.test_body_columns import MISTAKES, _assert_same_bodies, _generated_scene, _scene_with

PIECE_BYTES = 2000


def _loads(path, monkeypatch, *, in_pieces: bool | None = None):
    """``path`` loaded in pieces and as a whole: each the scene, or the error's (text, key, value). ``in_pieces``:
    whether the pieces must have given the scene themselves (True) or left it to the whole file (False)."""
    loaded, given = [], []

    def spied(*args):
        given.append(read_in_pieces(*args))
        return given[-1]

    read_in_pieces = scene_file._scene_in_pieces
    for pieces in (functools.partial(toml_file.body_pieces, piece_bytes=PIECE_BYTES), lambda text: None):
        with monkeypatch.context() as patch:
            patch.setattr(scene_file, "FAST_PARSE_BYTES", 0)
            patch.setattr(scene_file, "body_pieces", pieces)
            patch.setattr(scene_file, "_scene_in_pieces", spied)
            try:
                loaded.append(load_scene(path))
            except InputError as error:
                loaded.append((str(error), error.key, repr(error.value)))
    if in_pieces is not None:
        assert bool(given) == in_pieces
    return loaded


def _with_kicks(path):
    """``path`` with a kick before the bodies and two among them (in later pieces)."""
    lines = path.read_text().split("\n")
    kick = ["[[kick]]", 'body = "b1"', "time = {}", "angular_impulse = [0.5, 0.0, 0.0]", ""]
    middle, late = len(lines) // 2, 3 * len(lines) // 4
    middle, late = (lines.index("[[body]]", at) for at in (middle, late))
    lines = [*kick, *lines[:middle], *kick, *lines[middle:late], *kick, *lines[late:]]
    text = "\n".join(lines)
    for time in ("1.0", "2.0", "3.5"):
        text = text.replace("time = {}", f"time = {time}", 1)
    path.write_text(text)
    return path


@pytest.mark.parametrize("seed", range(3))
def test_a_file_read_in_pieces_is_the_file_read_whole(tmp_path, seed, monkeypatch):
    path = _with_kicks(_generated_scene(tmp_path, 300, seed))
    assert len(toml_file.body_pieces(path.read_text(), PIECE_BYTES)) > 10
    pieces, whole = _loads(path, monkeypatch, in_pieces=True)
    _assert_same_bodies(pieces, whole)
    # Default names count from the file's first body, kinematic bodies, pivots and parents included.
    assert [body.name for body in pieces.bodies] == [body.name for body in whole.bodies]
    assert [body.name for body in pieces.bodies][5] == "body5"
    assert [(kick.body, kick.time) for kick in pieces.kicks] == [("b1", 1.0), ("b1", 2.0), ("b1", 3.5)]
    assert [(kick.body, kick.time) for kick in pieces.kicks] == [(kick.body, kick.time) for kick in whole.kicks]


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_mistake_in_a_later_piece_is_reported_as_the_whole_file_reports_it(tmp_path, mistake, monkeypatch):
    path = _scene_with(tmp_path, {33: mistake})
    assert len(toml_file.body_pieces(path.read_text(), PIECE_BYTES)) > 1
    pieces, whole = _loads(path, monkeypatch)
    if isinstance(whole, tuple):
        assert pieces == whole
    else:
        _assert_same_bodies(pieces, whole)


@pytest.mark.parametrize(
    "later",
    [
        ("[scene]\ngravity = [0.0, 0.0, 1.0]\n", False),  # the root's table again: a mistake the whole file names
        ('[kick.extra]\nbody = "b1"\n', False),  # a table of the last kick, made in another piece
        ("mass = 2.0\n", True),  # a key of the last body's table, as in the whole file
        ('[[kick]]\nbody = "b2"\ntime = 2.0\nangular_impulse = [0.0, 1.0, 0.0]\n', True),  # kicks anywhere
        ("[[change]]\ntime = 2.0\ngyroscopic = false\n", True),  # changes too
        ("[change.extra]\ntime = 1.0\n", False),  # a table of a change made in another piece
        ('[[camera]]\ntime = 2.0\ntarget = "b3"\n', True),  # camera keys too
        ('[[caption]]\ntime = 1.0\nduration = 2.0\ntext = "b2"\nposition = "b2"\n', True),  # captions too
    ],
)
def test_a_later_piece_that_reaches_into_another_reads_as_the_whole_file(tmp_path, later, monkeypatch):
    later, in_pieces = later
    path = _scene_with(tmp_path, {})
    lines = path.read_text().split("\n")
    cut = lines.index('name = "b30"') - 1
    kick = '[[kick]]\nbody = "b1"\ntime = 1.0\nangular_impulse = [0.5, 0.0, 0.0]\n'
    path.write_text(kick + "\n".join(lines[:cut]) + "\n" + later + "\n" + "\n".join(lines[cut:]))
    pieces, whole = _loads(path, monkeypatch, in_pieces=in_pieces)
    if isinstance(whole, tuple):
        assert pieces == whole
    else:
        _assert_same_bodies(pieces, whole)
        assert pieces.changes == whole.changes and len(pieces.changes) == later.count("[[change]]")
        assert pieces.camera == whole.camera and len(pieces.camera) == later.count("[[camera]]")
        assert pieces.captions == whole.captions and len(pieces.captions) == later.count("[[caption]]")


def test_a_file_is_cut_only_at_lines_that_are_a_body_header_and_not_in_a_multi_line_string():
    body = '[[body]]\nshape = "box"\n\n'
    text = "[scene]\n" + body * 50 + "[[body]] # a comment\n" + body * 50 + "[[ body ]]\n" + body * 50
    pieces = toml_file.body_pieces(text, 100)
    assert "".join(pieces) == text and len(pieces) > 10
    assert all(piece.startswith("[[body]]\n") for piece in pieces[1:])
    assert not any(piece.startswith(("[[body]] #", "[[ body")) for piece in pieces)
    assert toml_file.body_pieces(text.replace("\n", "\r\n"), 100) is not None
    assert toml_file.body_pieces('description = """\n' + body + '"""\n' + body * 50, 100) is None
    assert toml_file.body_pieces(body * 5, 10**6) is None  # nothing past the first piece
