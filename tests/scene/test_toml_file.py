"""Large scene files parsed by rtoml give the documents tomllib gives, and every mistake in tomllib's words."""

from __future__ import annotations

import tomllib

import pytest

import spinlab.scene.files.toml_file as toml_file
from spinlab.scene.files.scene_file import PRESET_DIR, list_presets, load_scene
from spinlab.sim.errors import InputError
from tests.scene.test_body_columns import MISTAKES, _assert_same_bodies, _generated_scene, _scene_with

rtoml = pytest.importorskip("rtoml")


def _typed(value):
    """``value`` with the type of every leaf and the bits of every float, tables in their order."""
    if isinstance(value, dict):
        return ("table", [(key, _typed(entry)) for key, entry in value.items()])
    if isinstance(value, list):
        return ("array", [_typed(entry) for entry in value])
    return (type(value).__name__, value.hex() if isinstance(value, float) else value)


def _texts(tmp_path):
    yield from ((PRESET_DIR / f"{preset}.toml").read_text() for preset in list_presets())
    for seed in range(4):
        yield _generated_scene(tmp_path, 300, seed).read_text()
    yield 'a = -0.0\nb = 9007199254740993\nc = 1e-320\nd = [1, 2.0, 3e300]\ne = \'x\\u00e9\'\nf = """\nl"""\n'


def test_rtoml_and_tomllib_give_equal_documents(tmp_path):
    for text in _texts(tmp_path):
        assert _typed(rtoml.loads(text)) == _typed(tomllib.loads(text))


def test_only_a_large_file_takes_rtoml(tmp_path):
    text = _generated_scene(tmp_path, 300, 1).read_text()[: toml_file.RTOML_BYTES]
    text = text[: text.rindex("\n[[body]]")]
    assert toml_file.parse_toml(text, "x")[1] is tomllib
    big = text + "\n" + "# padding\n" * (toml_file.RTOML_BYTES // 10)
    assert toml_file.parse_toml(big, "x")[1] is rtoml


def _messages(path, monkeypatch):
    """The error of loading ``path`` through rtoml and through tomllib alone (``None`` when it loads)."""
    shown = []
    for parser in (rtoml, None):
        with monkeypatch.context() as patch:
            patch.setattr(toml_file, "RTOML_BYTES", 0)
            patch.setattr(toml_file, "rtoml", parser)
            try:
                scene = load_scene(path)
                shown.append(scene)
            except InputError as error:
                shown.append((str(error), error.key, repr(error.value)))
    return shown


@pytest.mark.parametrize("mistake", MISTAKES + ['name = "a\\u0000b"', "mass = 1979-05-27T07:32:00Z", "mass = {}"])
def test_a_mistake_read_by_rtoml_is_reported_in_tomllibs_words(tmp_path, mistake, monkeypatch):
    through_rtoml, through_tomllib = _messages(_scene_with(tmp_path, {17: mistake}), monkeypatch)
    if isinstance(through_tomllib, tuple):
        assert through_rtoml == through_tomllib
    else:
        _assert_same_bodies(through_rtoml, through_tomllib)


@pytest.mark.parametrize("text", ["[[body]]\nshape = \n", "a = [" * 300 + "]" * 300, "a = 9223372036854775808"])
def test_a_file_rtoml_refuses_is_left_to_tomllib(tmp_path, text, monkeypatch):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    through_rtoml, through_tomllib = _messages(path, monkeypatch)
    assert through_rtoml == through_tomllib and isinstance(through_tomllib, tuple)
