"""A scripted change is marked in a video (``record``, decoded back with PyAV): from the frame at its time on, the
views' label carries its caption (scene/model/run_changes.py), and nothing else differs from the video of the same
scene without it until the bodies part."""

import av
import numpy as np

from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene
from tests.scene.test_run_changes import changed_scene

SIZE = (480, 270)
FPS = 10  # a frame every 6 steps of 1/60 s: the change at 0.5 s is frame 5
CHANGE_FRAME = 5


def decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def test_a_video_marks_a_scripted_change_in_the_frames_from_its_time(tmp_path):
    scene = changed_scene(tmp_path, "\n[[change]]\ntime = 0.5\ngyroscopic = false\n")
    for name, recorded in (("changed.mp4", scene), ("plain.mp4", load_scene("t_handle"))):
        record_scene(recorded, tmp_path / name, duration=0.8, fps=FPS, size=SIZE)
    changed, plain = decoded(tmp_path / "changed.mp4"), decoded(tmp_path / "plain.mp4")
    assert len(changed) == len(plain) == 8
    apart = [np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 40 for a, b in zip(changed, plain, strict=True)]
    assert not any(mask.any() for mask in apart[:CHANGE_FRAME]), "the same frames before the change"
    # At the change the state is the same (the steps after it take the term off): what differs is the caption, in
    # the label at the top left of the view, a line of text.
    rows, columns = np.nonzero(apart[CHANGE_FRAME])
    assert rows.size > 50, "the caption is drawn"
    assert rows.max() < 0.2 * SIZE[1] and columns.max() < 0.35 * SIZE[0], (rows.max(), columns.max())
    label = (slice(0, int(0.2 * SIZE[1])), slice(0, int(0.35 * SIZE[0])))
    assert all(mask[label].sum() > 50 for mask in apart[CHANGE_FRAME:]), "and kept on the following frames"
