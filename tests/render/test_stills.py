"""``python -m commands.stills``: the README's pictures, rendered offscreen (it broke unseen once, when a view's
label grew a third line)."""

import numpy as np

from commands import stills
from tests.scene.test_png import _decode_by_hand


def test_the_stills_are_written_and_show_the_labelled_scene(gl_context, tmp_path, capsys):
    assert stills.main([str(tmp_path)]) == 0
    for name in ("t_handle", "compare"):
        image = _decode_by_hand((tmp_path / f"{name}.png").read_bytes())
        assert image.shape == (*reversed(stills.SIZE), 3)
        # Not one flat colour: bodies, labels and the floor's grid are there.
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 1000
    assert capsys.readouterr().out.count("wrote ") == 2
