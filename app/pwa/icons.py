"""Draws the installed app's icons from the favicon's idea (static/favicon.svg: a pale flag on
a rust square). Run once after changing the design, and commit the PNGs:

    .venv/bin/python -m app.pwa.icons

No SVG renderer is in the stack, so the flag is drawn again with Pillow on the favicon's
64-unit grid, four times oversized and scaled down for smooth edges."""

from __future__ import annotations

from PIL import Image, ImageDraw

from app.core.settings import PACKAGE

RUST, PALE = (0x8B, 0x3A, 0x12, 255), (0xF6, 0xF3, 0xEE, 255)
ICONS = PACKAGE / "static" / "icons"
SUPERSAMPLE = 4


def _flag(draw: ImageDraw.ImageDraw, scale: float, dx: float, dy: float) -> None:
    """The pole and the swallow-tailed flag of favicon.svg, in its 64-unit coordinates."""

    def at(x: float, y: float) -> tuple[float, float]:
        return dx + x * scale, dy + y * scale

    width, radius = 5 * scale, 2.5 * scale
    (x0, y0), (x1, y1) = at(18, 10), at(18, 56)
    draw.rectangle((x0 - width / 2, y0, x1 + width / 2, y1), fill=PALE)
    for cx, cy in ((x0, y0), (x1, y1)):  # the round caps of the stroke
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=PALE)
    draw.polygon([at(21, 12), at(47, 12), at(40, 21), at(47, 30), at(21, 30)], fill=PALE)


def draw(size: int, maskable: bool = False) -> Image.Image:
    """A square icon of `size` pixels. The plain one is the favicon's rounded square on
    transparency; a maskable one (and Apple's, which iOS rounds itself) fills the square and
    keeps the flag inside the central 80% circle that every mask shape leaves visible."""
    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, big, big), fill=RUST)
        # The flag spans x 15.5..47 and y 7.5..58.5 of 64: centred in a 0.62 box it stays
        # inside the safe circle (radius 0.4 of the side).
        scale = big * 0.62 / 64
        offset_x = (big - (15.5 + 47) * scale) / 2
        offset_y = (big - (7.5 + 58.5) * scale) / 2
        _flag(pen, scale, offset_x, offset_y)
    else:
        scale = big / 64
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=12 * scale, fill=RUST)
        _flag(pen, scale, 0, 0)
    return image.resize((size, size), Image.Resampling.LANCZOS)


FILES = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for name, (size, maskable) in FILES.items():
        image = draw(size, maskable)
        if maskable:  # no transparency: iOS would show it black
            image = image.convert("RGB")
        image.save(ICONS / name, optimize=True)


if __name__ == "__main__":
    main()
