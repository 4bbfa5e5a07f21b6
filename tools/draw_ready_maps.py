"""Draws the ready maps' images (app/maps/data/*.png, R12.13): a region, a walled city and a
city district, in flat colours so the files stay small. The places and paths are drawn by the
map page over the image, so the images only show land, water, woods, hills and streets.
Run it again after changing a drawing; the images are ours (the project's licence).

    python tools/draw_ready_maps.py
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "app" / "maps" / "data"
W, H = 1200, 800
LAND, WATER, WOOD, HILL, ROAD, WALL, ROOF = "#e8dcb5", "#8fb8d0", "#7fa06a", "#b9a27a", "#cdb98c", "#8a7a66", "#c98d6b"


def _at(x: float, y: float) -> tuple[float, float]:
    return x * W / 100, y * H / 100


def _blobs(draw: ImageDraw.ImageDraw, rnd: random.Random, cx: float, cy: float, spread: float, n: int, fill: str) -> None:
    for _ in range(n):
        x, y = _at(cx + rnd.uniform(-spread, spread), cy + rnd.uniform(-spread, spread) * 1.2)
        r = rnd.uniform(14, 30)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def region() -> Image.Image:
    rnd = random.Random(12)
    img = Image.new("RGB", (W, H), LAND)
    draw = ImageDraw.Draw(img)
    draw.polygon([_at(100, 55), _at(90, 70), _at(93, 100), _at(100, 100)], fill=WATER)  # the sea in the south-east
    draw.line([_at(0, 50), _at(20, 62), _at(38, 58), _at(52, 66), _at(68, 72), _at(92, 78)], fill=WATER, width=18)  # the river
    _blobs(draw, rnd, 18, 32, 9, 40, WOOD)  # Ravenwood
    _blobs(draw, rnd, 80, 30, 8, 22, HILL)  # the hills of the mine
    for x, y in ((60, 15), (66, 20), (55, 22)):
        draw.polygon([_at(x - 3, y + 4), _at(x, y - 4), _at(x + 3, y + 4)], fill=HILL)
    return img


def city() -> Image.Image:
    img = Image.new("RGB", (W, H), LAND)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, H * 0.82, W, H), fill=WATER)  # the harbour's water
    draw.ellipse((*_at(12, 8), *_at(88, 92)), outline=WALL, width=14)
    draw.line([_at(50, 8), _at(50, 92)], fill=ROAD, width=16)
    draw.line([_at(12, 50), _at(88, 50)], fill=ROAD, width=16)
    draw.ellipse((*_at(45, 43), *_at(55, 57)), fill=WALL)  # the castle
    return img


def district() -> Image.Image:
    rnd = random.Random(7)
    img = Image.new("RGB", (W, H), LAND)
    draw = ImageDraw.Draw(img)
    for x in range(0, 101, 20):
        draw.line([_at(x, 0), _at(x + 6, 100)], fill=ROAD, width=12)
    for y in range(0, 101, 25):
        draw.line([_at(0, y), _at(100, y + 4)], fill=ROAD, width=12)
    for _ in range(60):
        x, y = _at(rnd.uniform(2, 96), rnd.uniform(2, 94))
        draw.rectangle((x, y, x + rnd.uniform(20, 44), y + rnd.uniform(16, 30)), fill=ROOF)
    return img


def save(image: Image.Image, name: str) -> None:
    image.quantize(colors=16).save(OUT / name, optimize=True)


if __name__ == "__main__":
    save(region(), "region.png")
    save(city(), "city.png")
    save(district(), "district.png")
