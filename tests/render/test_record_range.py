"""``record --from T0 --to T1``: exactly the frames a whole recording shows from T0 on, bit for bit before encoding."""

import av
import numpy as np
import pytest

from spinlab.render.record import first_frame, frame_count, frame_range, render_frames
from spinlab.scene.files.limits import MAX_FRAMES
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError

SIZE = (320, 180)
FPS = 20.0


@pytest.mark.parametrize(
    "name, options",
    [
        ("compare", {}),  # several views, ghosts, trails
        ("heavy_top", {"poinsot": False, "follow": 0}),  # the cameras follow the body frame by frame
        ("t_handle", {"poinsot": True}),  # the Poinsot view's traces
    ],
)
def test_a_time_range_is_the_whole_recordings_frames_bit_for_bit(name, options):
    scene = load_scene(name)
    whole = [image for image, _ in render_frames(scene, duration=2.0, fps=FPS, size=SIZE, **options)]
    part = list(render_frames(scene, duration=2.0, fps=FPS, size=SIZE, start=1.25, **options))
    assert len(whole) == 40 and len(part) == 15  # frames 25..39
    for index, (image, t) in enumerate(part):
        assert np.array_equal(image, whole[25 + index]), index
        assert t == pytest.approx((25 + index) / FPS, abs=0.51 * scene.h)


def test_the_frames_stepped_through_before_the_range_are_told_of():
    told = []
    frames = render_frames(
        load_scene("t_handle"), duration=1.0, fps=FPS, size=SIZE, start=0.5, skipped=lambda *a: told.append(a)
    )
    assert len(list(frames)) == 10
    assert told == [(done, 10) for done in range(1, 11)], "one call a frame before the first written, up to all of them"


def test_the_first_frame_is_the_one_a_whole_recording_shows_then():
    assert first_frame(0.0, 2.0, 20.0) == 0
    assert first_frame(1.0, 2.0, 20.0) == 20
    assert first_frame(1.97, 2.0, 20.0) == 39
    for start in (2.0, 3.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match="--from"):
            first_frame(start, 2.0, 20.0)


def test_record_writes_the_range_as_a_video_of_its_frames(tmp_path, capsys):
    from spinlab.commands.cli import main

    out = tmp_path / "range.mp4"
    arguments = ["--from", "0.5", "--to", "1.5", "--fps", "20", "--size", "160x90", "--out", str(out)]
    code = main(["record", "kick", *arguments])
    assert code == 0
    assert "20 frames at 20 fps" in capsys.readouterr().out
    with av.open(str(out)) as container:
        assert sum(1 for _ in container.decode(video=0)) == 20


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--from", "2", "--to", "2"], "--from: must come before the end of the video"),
        (["--to", "2", "--duration", "3"], "--to: give the end as --to or as --duration, not both"),
        (["--from", "-1"], "must be a finite number >= 0"),
    ],
)
def test_a_range_that_holds_no_frame_is_refused_before_any_work(tmp_path, capsys, arguments, message):
    from spinlab.commands.cli import main

    out = tmp_path / "none.mp4"
    try:
        code = main(["record", "kick", "--out", str(out), *arguments])
    except SystemExit as stop:  # argparse's refusals
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_from_three_to_six_seconds_is_frames_180_to_359_of_the_whole_recording():
    """The issue's own range, at 60 frames a second (small frames: the bytes, not the size, are the point)."""
    options = {"duration": 6.0, "fps": 60.0, "size": (96, 54)}
    scene = load_scene("t_handle")
    whole = [image for image, _ in render_frames(scene, **options)]
    part = [image for image, _ in render_frames(scene, start=3.0, **options)]
    assert len(whole) == 360 and len(part) == 180
    for index, image in enumerate(part):
        assert np.array_equal(image, whole[180 + index]), index


def test_a_span_shorter_than_a_frame_says_so(tmp_path, capsys):
    # "--from 1 --to 1.001" was refused as "must come before the end of the video (1.001 s)": it does.
    from spinlab.commands.cli import main

    assert main(["record", "kick", "--from", "1", "--to", "1.001", "--out", str(tmp_path / "x.mp4")]) == 2
    err = capsys.readouterr().err
    assert "holds no frame at 60 fps" in err and "before the end" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_frame_limit_counts_the_frames_written_not_those_before_the_start():
    fps = 60.0
    start = MAX_FRAMES / fps  # a whole recording to start + 1 s would be past the limit
    assert frame_range(start, start + 1.0, fps) == range(MAX_FRAMES, MAX_FRAMES + 60)
    with pytest.raises(InputError, match="limit"):
        frame_count(start + 1.0, fps)
    with pytest.raises(InputError, match=r"asks for 1,000,001 video frames"):
        frame_range(1.0, 1.0 + (MAX_FRAMES + 1) / fps, fps)


def test_the_help_says_what_is_the_same_and_what_is_not(capsys):
    # "bit for bit" was said of the video, whose decoded frames differ (PSNR 48-51 dB): only the images before
    # encoding are the same.
    from spinlab.commands.cli import main

    with pytest.raises(SystemExit):
        main(["record", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the same images before encoding, bit for bit" in text and "decoded they differ slightly" in text
