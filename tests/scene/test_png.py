"""scene/files/png.py: the one PNG encoder, checked by two decoders that share nothing with it (FFmpeg's, through PyAV,
and the format read by hand with zlib), and by the files it writes."""

import struct
import zlib

import av
import numpy as np
import pytest

from spinlab.scene.files.png import PNG_SIGNATURE, encode_png, save_png
from spinlab.sim.errors import InputError


def _decode_by_hand(data: bytes) -> np.ndarray:
    """An 8-bit RGB PNG with filter 0 on every row, read from its chunks; every CRC checked."""
    assert data[:8] == PNG_SIGNATURE
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind, body = data[offset + 4 : offset + 8], data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        chunks.append((kind, body))
        offset += 12 + length
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, compression, filtering, interlace) == (8, 2, 0, 0, 0)
    rows = np.frombuffer(zlib.decompress(chunks[1][1]), dtype=np.uint8).reshape(height, 1 + 3 * width)
    assert not rows[:, 0].any(), "filter type 0 on every row"
    return rows[:, 1:].reshape(height, width, 3)


@pytest.mark.parametrize("shape", [(37, 53, 3), (1, 1, 3), (2, 7, 3)])
def test_png_decodes_to_the_same_pixels(tmp_path, shape):
    image = np.random.default_rng(3).integers(0, 256, size=shape, dtype=np.uint8)
    path = save_png(tmp_path / "shot.png", image)
    assert path == tmp_path / "shot.png"
    assert np.array_equal(_decode_by_hand(path.read_bytes()), image)
    with av.open(str(path)) as container:
        decoded = next(container.decode(video=0)).to_ndarray(format="rgb24")
    assert np.array_equal(decoded, image)


def test_a_strided_view_is_encoded_as_its_pixels():
    image = np.random.default_rng(4).integers(0, 256, size=(20, 30, 3), dtype=np.uint8)
    view = image[::2, ::3]  # not contiguous
    assert np.array_equal(_decode_by_hand(encode_png(view)), view)


@pytest.mark.parametrize(
    "image",
    [np.zeros((4, 4, 2), np.uint8), np.zeros((4, 4, 4), np.uint8), np.zeros((4, 4, 3), np.float32), np.zeros((4, 4))],
    ids=["two channels", "rgba", "float", "grey"],
)
def test_anything_but_rgb_bytes_is_refused(image):
    with pytest.raises(ValueError, match=r"\(H, W, 3\) uint8"):
        encode_png(image)


def test_a_png_into_a_missing_directory_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        save_png(tmp_path / "missing" / "shot.png", np.zeros((2, 2, 3), np.uint8))
    assert list(tmp_path.iterdir()) == []
