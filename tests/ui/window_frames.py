"""What the window tests drive a real window with: frames of a fixed wall time, and a state's bytes."""

FRAME_S = 1.0 / 60.0
STATE_FIELDS = ("q", "omega_world", "L_world", "position")


def run_frames(app, count: int, wall_dt: float = FRAME_S) -> None:
    """``count`` frames of the window's loop (events, a frame of ``wall_dt`` seconds, the flip)."""
    for _ in range(count):
        app.window.dispatch_events()
        app.frame(wall_dt)
        app.window.flip()


def state_bytes(snapshot) -> bytes:
    """Every body's pose and motion in ``snapshot``, as bytes: equal only when bit for bit the same."""
    return b"".join(getattr(snapshot, name).tobytes() for name in STATE_FIELDS)


def start_running(app, preset: str, time_scale_exp: int = 3) -> None:
    """Load ``preset`` in the window and let it run at ``2**time_scale_exp`` times real time (8 steps a frame of
    1/60 s at h = 1/60 by default), the cameras still."""
    from spinlab.ui.controller_state import PanelEdits

    app.pending = PanelEdits(scene=preset, reset=True)
    run_frames(app, 1)
    app.state.paused, app.state.time_scale_exp, app.state.follow = False, time_scale_exp, False


def finished_video(app, most_frames=3000):
    """Draw frames until the stopped recordings are finalised (ui/recording.py does it in the background); the
    last video's path."""
    for _ in range(most_frames):
        if not app.recorder.finishing:
            break
        run_frames(app, 1)
    assert not app.recorder.finishing, "a stopped video was never finalised"
    return app.recorder.last_video
