"""Every character the window draws is in the fonts it draws with (Roboto, regular and bold, from imgui-bundle):
ImGui shows a missing glyph as a box ("E₀" did). The texts are the string literals of ui/ and render/ (docstrings and
comments aside), read from the source, and the fonts' character maps from their files."""

import ast
import struct
from pathlib import Path

from spinlab.render.text import BODY_FONT, TITLE_FONT

ROOT = Path(__file__).resolve().parents[2]


def character_map(font: Path) -> set[int]:
    """The code points a TrueType/OpenType font maps to glyphs (its 'cmap' table, formats 4 and 12)."""
    data = font.read_bytes()
    tables = {
        data[12 + 16 * i : 16 + 16 * i]: struct.unpack(">I", data[20 + 16 * i : 24 + 16 * i])[0]
        for i in range(struct.unpack(">H", data[4:6])[0])
    }
    cmap = tables[b"cmap"]
    points: set[int] = set()
    for i in range(struct.unpack(">H", data[cmap + 2 : cmap + 4])[0]):
        start = cmap + struct.unpack(">I", data[cmap + 8 + 8 * i : cmap + 12 + 8 * i])[0]
        kind = struct.unpack(">H", data[start : start + 2])[0]
        if kind == 4:
            segments = struct.unpack(">H", data[start + 6 : start + 8])[0] // 2
            ends = struct.unpack(f">{segments}H", data[start + 14 : start + 14 + 2 * segments])
            firsts = struct.unpack(f">{segments}H", data[start + 16 + 2 * segments : start + 16 + 4 * segments])
            points.update(p for first, end in zip(firsts, ends, strict=True) for p in range(first, end + 1))
        elif kind == 12:
            for group in range(struct.unpack(">I", data[start + 12 : start + 16])[0]):
                first, end, _ = struct.unpack(">III", data[start + 16 + 12 * group : start + 28 + 12 * group])
                points.update(range(first, end + 1))
    return points


def drawn_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of ``path`` but those standing alone as statements (docstrings, attribute notes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    alone = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in alone
    ]


def test_every_character_drawn_is_in_the_fonts():
    covered = character_map(BODY_FONT) & character_map(TITLE_FONT)
    assert {ord(c) for c in "ωΔ×·…−≤"} <= covered and ord("₀") not in covered  # the map is read right
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {char!r} (U+{ord(char):04X}) in {text[:60]!r}"
        for folder in ("ui", "render")
        for path in sorted((ROOT / folder).glob("*.py"))
        for line, text in drawn_strings(path)
        for char in dict.fromkeys(text)
        if ord(char) >= 0x80 and ord(char) not in covered
    ]
    assert not missing, "\n".join(missing)
