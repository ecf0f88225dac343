"""The API's reference (docs/api.md): pdoc builds it from the docstrings without a warning, every public name
documented."""

import warnings

import pytest

import spinlab
from spinlab import api


def test_the_api_reference_builds_without_a_warning(tmp_path):
    pdoc = pytest.importorskip("pdoc")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc("spinlab.api", output_directory=tmp_path)
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
    page = (tmp_path / "spinlab" / "api.html").read_text(encoding="utf-8")
    for name in api.__all__:
        assert f'id="{name}"' in page, name
    for member in ("Run.trace", "Run.to_pandas", "Run.plot", "Run.video", "Comparison.plot", "Comparison.failures"):
        assert f'id="{member}"' in page, member


def test_every_public_name_of_the_api_has_a_docstring_and_is_offered_by_spinlab():
    assert spinlab.API == frozenset(api.__all__) - {"DEFAULT_INTEGRATOR"}
    for name in api.__all__:
        value = getattr(api, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), name
        assert getattr(spinlab, name, value) is value
