"""What a real game's level load must show on the GPU, from the game's own
data files: Neverball names the materials of a level in its .sol file, each
an image under textures/ (PNG or JPEG), and uploads each as a texture of the
image's size in its unsized format (GL_RGB or GL_RGBA: `memframe report gpu`
counts those "as uploaded", width x height x channels). Each load of level
01 must make one texture for each of those images, with their dimensions,
format and bytes, in the frames between the step that loads the level and
the next step: the GPU side checked against truth nobody here wrote.
"""
import glob
import os
import re
import struct
from collections import Counter

import capture_checks

NEVERBALL_DATA = "/usr/share/games/neverball"
GL_FORMATS = {3: "GL_RGB", 4: "GL_RGBA"}


def png_size(data):
    """(width, height, channels) of a PNG of 8-bit RGB or RGBA, else None."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    channels = {2: 3, 6: 4}.get(color)
    return (width, height, channels) if depth == 8 and channels else None


def jpeg_size(data):
    """(width, height, channels) of a baseline or progressive JPEG, else None."""
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width, components = struct.unpack(">HHB", data[at + 5:at + 10])
            return (width, height, components) if components in GL_FORMATS else None
        at += 2 + length
    return None


def image_size(path):
    with open(path, "rb") as f:
        data = f.read()
    return png_size(data) or jpeg_size(data)


def level_images(sol_path, data=NEVERBALL_DATA):
    """The images a level names (its materials, its background and its
    shot), as (width, height, channels) of each file found."""
    with open(sol_path, "rb") as f:
        sol = f.read()
    names = set(re.findall(rb"mtrl/[A-Za-z0-9_\-]+", sol))
    paths = []
    for name in sorted(names):
        found = sorted(glob.glob(os.path.join(data, "textures", name.decode() + ".*")))
        found = [p for p in found if p.endswith((".png", ".jpg"))]
        if found:
            paths.append(found[0])
    for path in re.findall(rb"(?:back|shot-[A-Za-z0-9_\-]+)/[A-Za-z0-9_\-]+\.(?:png|jpg)", sol):
        paths.append(os.path.join(data, path.decode()))
    sizes = [image_size(p) for p in paths if os.path.exists(p)]
    return [s for s in sizes if s]


def texture_key(width, height, channels):
    return ("texture", width, height, GL_FORMATS[channels], width * height * channels)


def check_neverball(memframe, capture, steps, data=NEVERBALL_DATA):
    """Failures, (name, message): each load of level 01 that did not make
    the textures of its images."""
    expected = Counter(texture_key(*s) for s in level_images(os.path.join(data, "map-easy", "easy.sol"), data))
    if sum(expected.values()) < 8:
        return [("gpu truth", "map-easy/easy.sol names %d images: the game's data changed" % sum(expected.values()))]
    objects = capture_checks.report(memframe, capture, "gpu")["objects"]
    failures = []
    for i, step in enumerate(steps):
        if step["loads"] != "load" or "level 01" not in step["name"]:
            continue
        until = steps[i + 1]["frame"] if i + 1 < len(steps) else float("inf")
        made = Counter(("texture", o["width"], o["height"], o["format_name"], o["peak_bytes"])
                       for o in objects
                       if o["kind"] == "texture" and step["frame"] <= o["made_frame"] < until)
        missing = expected - made
        if missing:
            failures.append(("gpu truth: " + step["name"],
                             "frames %d..%d made no texture for %s (made: %s)" %
                             (step["frame"], until - 1, sorted(missing.elements()), sorted(made.elements()))))
    if not any(s["loads"] == "load" and "level 01" in s["name"] for s in steps):
        failures.append(("gpu truth", "no step loads level 01"))
    return failures


CHECKS = {"neverball": check_neverball}


def check(memframe, game, capture, steps):
    """The GPU truth of `game` (none for a game without one)."""
    checker = CHECKS.get(game)
    return checker(memframe, capture, steps) if checker else []
