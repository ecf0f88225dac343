"""A screenshot of a whole X display, as a person would see it: ``python3 .ci/xshot.py DISPLAY OUT.png``.

Standard library only (ctypes on libX11, zlib for the PNG), so it runs before any package is installed. Exits 1,
saying why, when the picture is blank: fewer than MIN_COLOURS distinct colours in it.
"""

import ctypes
import ctypes.util
import struct
import sys
import zlib

MIN_COLOURS = 64
Z_PIXMAP = 2


class XImage(ctypes.Structure):
    # The leading fields of Xlib's XImage (Xlib.h); the rest (masks, functions) is not read.
    _fields_ = [(name, ctypes.c_int) for name in ("width", "height", "xoffset", "format")] + [
        ("data", ctypes.POINTER(ctypes.c_ubyte)),
        *[(name, ctypes.c_int) for name in ("byte_order", "bitmap_unit", "bitmap_bit_order", "bitmap_pad")],
        *[(name, ctypes.c_int) for name in ("depth", "bytes_per_line", "bits_per_pixel")],
    ]


def grab(display_name: str) -> tuple[int, int, bytes]:
    """The root window of ``display_name``: (width, height, RGB bytes row by row)."""
    x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XDefaultScreen.argtypes = [ctypes.c_void_p]
    x11.XDisplayWidth.argtypes = x11.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x11.XGetImage.restype = ctypes.POINTER(XImage)
    x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                              ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]  # fmt: skip
    display = x11.XOpenDisplay(display_name.encode())
    if not display:
        raise SystemExit(f"xshot: cannot open display {display_name}")
    screen = x11.XDefaultScreen(display)
    width, height = x11.XDisplayWidth(display, screen), x11.XDisplayHeight(display, screen)
    image = x11.XGetImage(display, x11.XDefaultRootWindow(display), 0, 0, width, height, 2**64 - 1, Z_PIXMAP)
    if not image or image.contents.bits_per_pixel != 32:
        raise SystemExit("xshot: no 32-bit image of the root window")
    row_bytes = image.contents.bytes_per_line
    raw = ctypes.string_at(image.contents.data, row_bytes * height)
    rgb = bytearray(width * height * 3)
    for y in range(height):
        row = raw[y * row_bytes : y * row_bytes + 4 * width]  # B, G, R, X on a little-endian server
        rgb[y * width * 3 : (y + 1) * width * 3 : 3] = row[2::4]
        rgb[y * width * 3 + 1 : (y + 1) * width * 3 : 3] = row[1::4]
        rgb[y * width * 3 + 2 : (y + 1) * width * 3 : 3] = row[0::4]
    return width, height, bytes(rgb)


def png(width: int, height: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG of the rows ``rgb``."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + rgb[y * width * 3 : (y + 1) * width * 3] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def main() -> int:
    display_name, out = sys.argv[1], sys.argv[2]
    width, height, rgb = grab(display_name)
    with open(out, "wb") as file:
        file.write(png(width, height, rgb))
    colours = len({rgb[k : k + 3] for k in range(0, len(rgb), 3 * 7)})  # every 7th pixel
    print(f"xshot: {out}: {width}x{height}, {colours} distinct colours (of every 7th pixel)")
    if colours < MIN_COLOURS:
        print(f"xshot: the screen is blank (fewer than {MIN_COLOURS} colours)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
