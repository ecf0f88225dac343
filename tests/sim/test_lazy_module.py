"""sim/compiled.lazy_module: a module executed at its first attribute access, and a clear error for a missing one."""

import sys

import pytest

from spinlab.sim.jit import lazy_module


def test_a_missing_module_is_named_in_a_module_not_found_error():
    # find_spec gives None for it: the error says which module, as an import would (not AttributeError on None).
    with pytest.raises(ModuleNotFoundError, match="spinlab_no_such_module") as raised:
        lazy_module("spinlab_no_such_module")
    assert raised.value.name == "spinlab_no_such_module"
    assert "spinlab_no_such_module" not in sys.modules


def test_a_module_runs_at_its_first_attribute_access(tmp_path, monkeypatch):
    (tmp_path / "spinlab_lazy_probe.py").write_text("import sys\nsys.spinlab_lazy_probe_ran = True\nVALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "spinlab_lazy_probe", raising=False)
    monkeypatch.setattr(sys, "spinlab_lazy_probe_ran", False, raising=False)
    module = lazy_module("spinlab_lazy_probe")
    assert sys.spinlab_lazy_probe_ran is False
    assert module.VALUE == 7
    assert sys.spinlab_lazy_probe_ran is True
    assert lazy_module("spinlab_lazy_probe") is module  # the one already imported
    monkeypatch.delitem(sys.modules, "spinlab_lazy_probe")
