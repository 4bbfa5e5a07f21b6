"""Uploaded images: verified by Pillow, stripped of metadata, kept with a web copy."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from app.core.errors import DomainError

MAX_BYTES = 10 * 1024 * 1024
MAX_PIXELS = 40_000_000  # 40 megapixels: a 9500 × 9500 image (90 MP) would take over a gigabyte to decode
WEB_MAX_SIDE = 2048
FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
# Pillow's own bomb check only raises at twice its limit, and as an "invalid image"; the header
# check in store_image refuses first, saying why, before anything is decoded.
Image.MAX_IMAGE_PIXELS = None


@dataclass
class StoredImage:
    original: str
    web: str
    width: int
    height: int


def _checked(data: bytes) -> tuple[Image.Image, str]:
    """The upload decoded, after the limits: its size in bytes, its pixels read from the
    header before anything is decoded (a pixel bomb is refused, saying why), its format."""
    if len(data) > MAX_BYTES:
        raise DomainError("image_too_large", max_mb=MAX_BYTES // (1024 * 1024))
    if not data:
        raise DomainError("image_invalid")
    try:
        with Image.open(BytesIO(data)) as probe:
            width, height = probe.size  # from the header, before anything is decoded
            if width * height > MAX_PIXELS:
                raise DomainError("image_too_many_pixels", width=width, height=height, max_mp=MAX_PIXELS // 1_000_000)
            probe.verify()
        image: Image.Image = Image.open(BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise DomainError("image_invalid") from None
    fmt = image.format
    if fmt is None or fmt not in FORMATS:
        raise DomainError("image_invalid")
    return image, fmt


@dataclass
class CleanImage:
    data: bytes
    ext: str
    width: int
    height: int


def clean_image(data: bytes, max_side: int = WEB_MAX_SIDE) -> CleanImage:
    """The upload re-encoded in memory (at most `max_side` on its longer side), upright, in its
    own format, without EXIF, GPS or comments: what a photo of the table keeps (R12.3)."""
    image, fmt = _checked(data)
    image = ImageOps.exif_transpose(image)
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    clean = Image.new(image.mode, image.size)
    clean.paste(image)
    clean.thumbnail((max_side, max_side))
    out = BytesIO()
    clean.save(out, format=fmt)
    return CleanImage(out.getvalue(), FORMATS[fmt], clean.width, clean.height)


def store_image(data: bytes, media_dir: Path) -> StoredImage:
    image, fmt = _checked(data)
    ext = FORMATS[fmt]
    image = ImageOps.exif_transpose(image)
    if ext == "jpg" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    media_dir.mkdir(parents=True, exist_ok=True)
    stem = secrets.token_hex(12)
    original = f"{stem}.{ext}"
    # Saving anew without the source's info drops EXIF, GPS and comments.
    clean = Image.new(image.mode, image.size)
    clean.paste(image)
    clean.save(media_dir / original, format=fmt)
    web_img = clean.copy()
    web_img.thumbnail((WEB_MAX_SIDE, WEB_MAX_SIDE))
    web = f"{stem}.web.{ext}"
    web_img.save(media_dir / web, format=fmt)
    return StoredImage(original=original, web=web, width=web_img.width, height=web_img.height)
