#!/usr/bin/env python3
"""game_phases_test.py's judgement on phases made up here: each check
passes where the phases are what the steps say, and fails, naming the
step or the phase, where they are not. No game runs."""
import struct
import unittest

from game_gpu_truth import jpeg_size, png_size
from game_phases_test import judge_phases, unexcused
from game_scripts import LOAD, MAY, MENU, PLAY


def step(name, frame, screen=None, loads=None, end=None):
    return {"name": name, "frame": frame, "end_frame": frame if end is None else end, "screen": screen,
            "loads": loads, "short": False}


def phase(kind, first, last, number, spikes=0):
    p = {"phase": kind, "name": "%s %d" % (kind, number), "frames": {"from": first, "to": last},
         "frame_count": last - first + 1}
    if kind == "steady":
        p.update(spikes=spikes, spike_threshold={"allocations": 300}, allocations_per_frame_median=200)
    return p


# A title menu, a level loaded at frame 100, played, back to the menu at 300.
STEPS = [step("title", 0, MENU), step("start: load", 100, None, LOAD, end=102), step("play", 150, PLAY),
         step("quit to the menu", 300, MENU, MAY)]
RIGHT = [phase("start-up", 0, 1, 1), phase("steady", 2, 100, 1), phase("load", 101, 103, 1),
         phase("steady", 104, 299, 2), phase("unload", 300, 301, 1), phase("steady", 302, 400, 3),
         phase("teardown", 401, 401, 1)]


def names(failures):
    return sorted(name for name, _ in failures)


class JudgeTest(unittest.TestCase):
    def test_phases_as_the_steps_say_pass(self):
        self.assertEqual(judge_phases(STEPS, RIGHT), [])

    def test_a_load_seen_as_a_spike_fails(self):
        phases = [phase("start-up", 0, 1, 1), phase("steady", 2, 103, 1, spikes=1), phase("steady", 104, 299, 2),
                  phase("unload", 300, 301, 1), phase("steady", 302, 400, 3), phase("teardown", 401, 401, 1)]
        self.assertEqual(names(judge_phases(STEPS, phases)), ["load after 'start: load'"])

    def test_a_load_too_late_fails_and_one_in_reach_passes(self):
        late = [dict(p) for p in RIGHT]
        late[2] = phase("load", 109, 110, 1)  # 7 frames after the key's release at 102
        self.assertEqual(names(judge_phases(STEPS, late)), ["load after 'start: load'"])
        early = [dict(p) for p in RIGHT]
        early[2] = phase("load", 98, 99, 1)  # the frame before the step's, taken in by the run
        early[1] = phase("steady", 2, 97, 1)
        early[3] = phase("steady", 100, 299, 2)
        self.assertEqual(judge_phases(STEPS, early), [])

    def test_menu_and_play_in_one_steady_phase_fail(self):
        phases = [phase("start-up", 0, 1, 1), phase("steady", 2, 100, 1), phase("load", 101, 103, 1),
                  phase("steady", 104, 400, 2), phase("teardown", 401, 401, 1)]
        failures = judge_phases(STEPS, phases)
        self.assertEqual(names(failures), ["one phase for menu and play"])
        self.assertIn("steady 2", failures[0][1])
        self.assertIn("quit to the menu", failures[0][1])

    def test_a_steady_phase_cut_into_loads_fails(self):
        phases = RIGHT[:3] + [phase("steady", 104, 199, 2)]
        for i, first in enumerate(range(200, 230, 6)):  # five one-frame loads 5 frames apart
            phases += [phase("load", first, first, i + 2), phase("steady", first + 1, first + 5, i + 3)]
        phases += [phase("steady", 230, 299, 8), phase("unload", 300, 301, 1), phase("steady", 302, 400, 9),
                   phase("teardown", 401, 401, 1)]
        self.assertEqual(names(judge_phases(STEPS, phases)), ["load count", "loads in a row"])

    def test_spikes_over_eight_percent_fail_in_and_outside_menus(self):
        phases = [dict(p) for p in RIGHT]
        phases[3] = phase("steady", 104, 299, 2, spikes=16)  # play: 196 frames, 15 allowed
        phases[5] = phase("steady", 302, 400, 3, spikes=7)  # a menu: 99 frames, 7 allowed
        self.assertEqual(names(judge_phases(STEPS, phases)), ["spikes outside menus"])
        phases[5] = phase("steady", 302, 400, 3, spikes=8)
        self.assertEqual(names(judge_phases(STEPS, phases)), ["spikes in menus", "spikes outside menus"])

    def test_four_spikes_in_a_row_fail_and_three_pass(self):
        def frames(spiked):
            return [{"frame": f, "spike": f in spiked} for f in range(0, 402)]
        self.assertEqual(judge_phases(STEPS, RIGHT, frames({150, 151, 152, 200, 202})), [])
        failures = judge_phases(STEPS, RIGHT, frames({150, 151, 152, 153}))
        self.assertEqual(names(failures), ["spikes in a row"])
        self.assertIn("150..153", failures[0][1])

    def test_known_wrong_is_printed_not_failed(self):
        known = {"etr": {"spikes outside menus": "a reason"}}
        failures = [("spikes outside menus", "steady 2: 10 spikes"), ("load count", "9 loads")]
        self.assertEqual(unexcused("etr", failures, known), ["load count: 9 loads"])
        self.assertEqual(unexcused("chromium-bsu", failures, known), ["spikes outside menus: steady 2: 10 spikes",
                                                                      "load count: 9 loads"])


class ImageSizes(unittest.TestCase):
    """game_gpu_truth.py's readers of the game's images, on headers made here."""

    def test_png_rgb_and_rgba_are_read_and_other_kinds_are_not(self):
        def png(width, height, depth, color):
            return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + struct.pack(">IIBB", width, height, depth, color)
        self.assertEqual(png_size(png(256, 128, 8, 2)), (256, 128, 3))
        self.assertEqual(png_size(png(16, 64, 8, 6)), (16, 64, 4))
        self.assertIsNone(png_size(png(16, 64, 8, 3)))   # a palette: the game expands it
        self.assertIsNone(png_size(png(16, 64, 16, 2)))  # 16 bits a channel
        self.assertIsNone(png_size(b"GIF89a" + bytes(20)))

    def test_jpeg_size_is_read_from_its_frame_header_past_other_segments(self):
        app0 = b"\xff\xe0" + struct.pack(">H", 16) + bytes(14)
        sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 200, 300, 3)
        self.assertEqual(jpeg_size(b"\xff\xd8" + app0 + sof0), (300, 200, 3))
        self.assertIsNone(jpeg_size(b"\xff\xd8" + app0))  # no frame header
        self.assertIsNone(jpeg_size(b"\x89PNG"))


if __name__ == "__main__":
    unittest.main()
