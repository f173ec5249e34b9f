"""The demo's pictures: small PNGs drawn here, in pure Python, from a number.

Each picture is a little scene (sky, hills, a sun or moon, a coloured object) chosen and placed by
its number, so the same number always gives the same bytes and nothing is fetched from the network.
"""

import math
import random
import struct
import zlib
from functools import lru_cache

from queuedesk.api.numbers import plain_int

WIDTH, HEIGHT = 160, 112
PICTURES = 48  # photo-0.png .. photo-47.png

Colour = tuple[int, int, int]

_SKIES: list[tuple[Colour, Colour]] = [
    ((64, 132, 214), (186, 222, 248)),  # day
    ((250, 140, 90), (255, 214, 150)),  # sunset
    ((18, 24, 60), (70, 60, 120)),  # night
    ((120, 130, 140), (200, 205, 210)),  # overcast
]
_OBJECTS: list[Colour] = [(220, 60, 60), (250, 200, 40), (60, 170, 90), (150, 80, 200), (240, 240, 240)]


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """A truecolour PNG from `height` rows of `width` RGB pixels (3 bytes each)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 on every row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def _mix(a: Colour, b: Colour, t: float) -> Colour:
    return (int(a[0] + (b[0] - a[0]) * t), int(a[1] + (b[1] - a[1]) * t), int(a[2] + (b[2] - a[2]) * t))


@lru_cache(maxsize=PICTURES)
def picture(number: int) -> bytes:
    """Picture `number` (any int; taken modulo PICTURES) as PNG bytes; ~10 ms each, then cached."""
    rng = random.Random(number % PICTURES)
    top, bottom = _SKIES[rng.randrange(len(_SKIES))]
    hill = _mix((40, 110, 50), (120, 90, 40), rng.random())
    thing = _OBJECTS[rng.randrange(len(_OBJECTS))]
    sun_x, sun_y, sun_r = rng.randrange(20, WIDTH - 20), rng.randrange(12, 40), rng.randrange(7, 14)
    obj_x, obj_w, obj_h = rng.randrange(20, WIDTH - 50), rng.randrange(18, 40), rng.randrange(14, 34)
    phase = rng.random() * 6.28
    crest = [HEIGHT * 0.62 + 8 * _wave(x, phase, 0.045) for x in range(WIDTH)]
    square = rng.random() < 0.5
    rows: list[bytes] = []
    for y in range(HEIGHT):
        sky = bytes(_mix(top, bottom, y / HEIGHT))
        row = bytearray(sky * WIDTH)
        for x in range(WIDTH):
            if (x - sun_x) ** 2 + (y - sun_y) ** 2 <= sun_r * sun_r:
                row[3 * x : 3 * x + 3] = b"\xff\xec\x8c"
            if y >= crest[x]:
                row[3 * x : 3 * x + 3] = bytes(_mix(hill, (20, 50, 25), (y - crest[x]) / HEIGHT))
        base = int(HEIGHT * 0.85)
        if square:
            for yy in range(max(0, base - obj_h), base):
                if yy == y:
                    row[3 * obj_x : 3 * (obj_x + obj_w)] = bytes(thing) * obj_w
        elif base - obj_h <= y < base:
            half = (y - (base - obj_h)) * obj_w // (2 * obj_h)
            centre = obj_x + obj_w // 2
            row[3 * (centre - half) : 3 * (centre + half + 1)] = bytes(thing) * (2 * half + 1)
        rows.append(bytes(row))
    return png(WIDTH, HEIGHT, rows)


def _wave(x: int, phase: float, step: float) -> float:
    return math.sin(x * step + phase)


def picture_name(number: int) -> str:
    return f"photo-{number % PICTURES}.png"


def number_of(name: str) -> int | None:
    """The picture's number from its file name, or None when the name is not one of ours."""
    if not (name.startswith("photo-") and name.endswith(".png")):
        return None
    digits = name[len("photo-") : -len(".png")]
    number = plain_int(digits)
    if number is None or number >= PICTURES:
        return None
    return number
