"""The benchmarks' MuJoCo leaves no MUJOCO_LOG.TXT in the folder ``bench`` runs from (its default warning handler
appends one when a simulation goes unstable, as MuJoCo's Euler does in the accuracy benchmark)."""

import pytest

from spinlab.benchmarks.engine_peers import import_mujoco

UNSTABLE = (
    '<mujoco><option timestep="1" integrator="Euler"/><worldbody><body><freejoint/>'
    '<inertial pos="0 0 0" mass="1" diaginertia="1 2 3"/></body></worldbody></mujoco>'
)


def test_an_unstable_mujoco_run_writes_no_log_file(tmp_path, monkeypatch):
    pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    mujoco = import_mujoco()
    model = mujoco.MjModel.from_xml_string(UNSTABLE)
    data = mujoco.MjData(model)
    data.qvel[3:6] = 1e200
    for _ in range(3):
        mujoco.mj_step(model, data)
    assert data.warning[mujoco.mjtWarning.mjWARN_BADQVEL].number > 0, "MuJoCo did warn"
    assert list(tmp_path.iterdir()) == []
