"""Every text the window uses to explain itself, in one place: the panel's and the plots' tooltips, the keys and
mouse gestures of the key-help overlay, and each integrator's one-line description (from its claims,
sim/integrators/claims.py, never a second table).

Tooltips are keyed by a stable name the panel and the plots pass to their ``tip`` helper (tests/ui/test_help_texts.py
checks that every control drawn has one).
"""

from __future__ import annotations

from functools import cache

from spinlab.sim.integrators import CLAIMS
from spinlab.sim.integrators.claims import describe

__all__ = ["TOOLTIPS", "PLOT_TOOLTIPS", "KEY_HELP", "KEY_HELP_TITLE", "integrator_line", "tooltip"]

TOOLTIPS = {
    "kick_impulse": "The angular impulse J of a kick, N·m·s in the world frame: L jumps by exactly J.",
    "kick_now": "Strike the selected body (every copy of it in a comparison) at the next step boundary.",
    "clear_kicks": "Forget every kick of the scene, scripted and live, and start again.",
    "initial_axis": "The principal axis the angle of ω is measured from (the intermediate one: the Dzhanibekov flip).",
    "omega_size": "|ω| in rad/s. Released, the run restarts from the new ω (every copy that started alike too).",
    "omega_angle": "The angle of ω off the chosen principal axis, degrees: 0 spins about the axis exactly.",
    "omega_azimuth": "The direction of ω's tilt about the chosen axis, degrees.",
    "divergence": (
        "A view of a comparison whose energy grows by more than this (ΔE/E, a gain) is frozen at that step, its\n"
        "label saying why; so is one whose integrator fails (a non-finite state, Newton not converging). The others\n"
        "go on. A loss is bounded (damping): past this its label says 'ΔE −51 % (damping)', and the view goes on.\n"
        "At the right end the check is off."
    ),
    # status and run
    "pause": "Pause or run the simulation (Space).",
    "step": "Pause and advance one time step h (Right arrow).",
    "reset": "Start again from the initial state (R).",
    "reset_error": "The run stopped on a numerical failure: Reset starts it again from the initial state.",
    "key_help": "Show or hide every key and mouse gesture over the 3D view (F1 or ?).",
    "speed": "Simulated seconds per wall second, 1/32× to 8×. Drag, or Ctrl+click to type.",
    # scene
    "preset": "Load a preset scene from assets/scenes/.",
    "scene_path": "Type the path of a scene .toml file and press Enter to load it.",
    # integration
    "per_body": "Each body runs with the integrator chosen beside it, all in one view.",
    "side_by_side": (
        "One copy of the scene per ticked integrator, in lock step from the same initial state; bodies that would "
        "move alike (the compare preset's handles) are copied once."
    ),
    "compare": "Run this integrator's copy side by side.",
    "integrator": "The integrator that advances this body.",
    "every_integrator": "One integrator for every dynamic body.",
    "h": "The time step in seconds (a number or a fraction, e.g. 1/120). Enter applies it and restarts.",
    "gyroscopic": "Include the ω × L term of Euler's equations (untick: L drifts, no flip, a top falls instead).",
    # initial state
    "body": "The body whose initial state is edited below.",
    "omega_body": "Initial angular velocity in the body frame, rad/s (x, y, z). Enter applies and restarts.",
    "moments": "Principal moments of inertia, kg·m² (each ≤ the sum of the other two). Enter applies and restarts.",
    "orientation": "Initial orientation, a unit quaternion w, x, y, z (body to world). Enter applies and restarts.",
    # view
    "show_omega": "Draw the angular velocity ω as an arrow from each body's centre (yellow).",
    "show_momentum": "Draw the angular momentum L as an arrow (pink); constant when torque-free.",
    "show_axes": "Draw each body's principal axes: red minor, green middle, blue major moment.",
    "show_herpolhode": "Trace the tip of ω: the herpolhode, which rolls on the invariable plane.",
    "show_invariable_plane": "Draw the invariable plane ω·L/|L| = 2E/|L| that ω's tip stays on (torque-free).",
    "show_floor": "Draw the floor and the bodies' contact shadows.",
    "show_ghost": "Draw a translucent copy of the exact solution over each torque-free body.",
    "show_poinsot": (
        "The Poinsot construction for the body selected in the panel (else the first torque-free body): its inertia "
        "ellipsoid rolling without slipping on "
        "the invariable plane, the polhode on the ellipsoid and the herpolhode on the plane; integrator left, exact "
        "right."
    ),
    "show_captions": "Show the scene file's captions over the views at their times; the timeline marks each.",
    "split_views": "One 3D view per integrator (side by side), or all copies in one view.",
    "reset_view": "Frame every body again (V).",
    "text_scale": "The panel's and plots' text size: larger for a projector (+ and −).",
    "follow": "Each view's camera moves with its copy of the selected body, keeping your framing (F).",
    "camera_keys": "The scene's camera keys move the cameras, in every view alike. A drag or the wheel holds the "
    "cameras until the next key (Reset view gives them back); following a body holds them while it lasts.",
    "show_plots": "Show the plots along the bottom (P).",
    "plot": "Show this plot.",
    # capture and files
    "output_dir": "The folder screenshots, videos, CSV and saved scenes go to.",
    "screenshot": "Save a PNG of the window (F12).",
    "record": (
        "Record an MP4 of the 3D view (or the whole window) at the chosen speed (F9). Looking back in the run's "
        "history, it records the history from the step shown to the run now, then stops."
    ),
    "stop_record": "Stop and finalise the video (F9).",
    "export_csv": "Write every plotted series to a CSV file, one row per step.",
    "record_window": "Record the whole window (panel and plots) instead of only the 3D view.",
    "save_text": "The file name the setup is saved under.",
    "save": "Save the current setup (initial states, integrators, h, kicks) as a scene file, with the run's switches\n"
    "of the gyroscopic term as [[change]] tables: loading it gives this run again (a branch's too). An existing\n"
    "file is kept unless you press again to overwrite it.",
    "overwrite": "A file of this name exists: press to replace it with the current setup, or change the name.",
}

PLOT_TOOLTIPS = {
    "energy": (
        "Relative energy error |E − E(0)| / E(0) per step, log scale (E(0): at the start, or just after the last\n"
        "kick). Symplectic and exact methods stay bounded."
    ),
    "momentum": "World angular momentum error |L − L(0)| / |L(0)|, log scale; torque-free bodies only.",
    "orientation": "Angle (rad) from the closed-form orientation to the body's, log scale. Branched, a thick pale\n"
    "line per view: the angle between the branch's bodies and the original's at each step since the branch\n"
    "(in every time plot the original's own lines are drawn faint under the branch's).",
    "herpolhode": "ω in the invariable plane (equal axes): each step's sample, the exact solution dashed.",
    "polhode": "Body ω on the middle axis against the other: each step's sample, the exact solution dashed.",
    "cost": "Newton iterations per step (left axis, per integrator) and milliseconds per step (right axis).",
    "integrators": (
        "Each integrator now: its cost (µs per body-step) against its accuracy (|ΔE|/E), log-log; hover a point "
        "for its name. Lower left is better."
    ),
}

KEY_HELP_TITLE = "Keys and mouse (F1 or ? to close)"
KEY_HELP = (
    ("Space", "pause / run"),
    ("Right", "one step (looking back: the recorded one)"),
    ("Left", "a step back in the run's history"),
    ("Home", "the run's first step (its history's oldest)"),
    ("End", "back to the run now"),
    ("B", "branch: go on from the step shown as a second run beside the original (again: end it)"),
    ("R", "reset to the initial state"),
    ("V", "reset the view"),
    ("F", "the cameras follow the selected body (on / off)"),
    ("P", "show / hide the plots"),
    ("H", "show / hide the panel"),
    ("+ / −", "larger / smaller text (for a projector)"),
    ("F9", "start / stop recording"),
    ("F12", "screenshot"),
    ("F1 or ?", "this help"),
    ("drag", "orbit the camera"),
    ("right-drag", "pan"),
    ("wheel", "zoom"),
    ("click", "select the body under the mouse (ringed where a view has several)"),
    ("Ctrl+drag", "kick the body the drag starts on (every copy in a comparison); the arrow shows |J|"),
    ("hover", "a control or a plot explains itself"),
)


def tooltip(key: str) -> str:
    """The tooltip of control ``key`` (KeyError for a control without one: a test catches it)."""
    return TOOLTIPS[key]


@cache
def integrator_line(name: str, under_torque: bool = False) -> str:
    """The one-line description of integrator ``name``: its method, order (in a scene ``under_torque``, the order
    it keeps there), what it conserves, explicit or implicit and its cost relative to euler
    (sim/integrators/claims.py's ``describe``). Made once: the panel's tooltips ask for it every frame, for each
    integrator listed (~40 a frame side by side)."""
    return describe(CLAIMS[name], under_torque=under_torque)
