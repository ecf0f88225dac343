"""``python -m spinlab.render.record_part``: one part of a recording in a process of its own (render/video_parts.py
starts it, with its job on stdin, and reads its reports on stdout)."""

import sys

from spinlab.render.video_file import record_scene
from spinlab.render.video_parts import record_part

if __name__ == "__main__":
    sys.exit(record_part(record_scene))
