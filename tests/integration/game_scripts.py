"""The games game_drive.py plays: how each starts (windowed, small, no
sound, its settings in a temporary HOME) and its steps, from the title
through a load into play and back. Each step's `wait` is what the slowest
screen after it needed under Mesa's software renderer on a busy two-core
machine, with room to spare: a key pressed during a load is lost.
"""
import time
from collections import namedtuple


class Key:
    """Keys pressed together and held `hold` seconds: a game that compares
    its keyboard state once a frame (SuperTux's menus) misses a press and
    a release that fall in one frame. A menu that repeats a held key
    (SuperTux's, after 0.4 s; Enigma's, where a second Escape closes the
    menu the first opened) is stepped with a shorter hold."""

    def __init__(self, *keys, hold=0.4):
        self.keys, self.hold = keys, hold

    def run(self, ui):
        ui.xdo("keydown", *self.keys)
        time.sleep(self.hold)
        ui.xdo("keyup", *reversed(self.keys))

    def __str__(self):
        keys = "+".join(self.keys)
        return "hold %s %gs" % (keys, self.hold) if self.hold >= 1 else "key " + keys


class Click:
    """A left click at x, y in the window; then the pointer goes back out
    of it, as the item under it would keep the focus of Neverball's menus."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def run(self, ui):
        ui.xdo("mousemove", "--window", ui.window, self.x, self.y)
        ui.xdo("click", "1")
        ui.rest_pointer()

    def __str__(self):
        return "click %d,%d" % (self.x, self.y)


class Steer:
    """Pointer moves by (dx, dy), cycling through `moves`, one every 0.1 s
    for `seconds`; with `button` held (fire). Enigma rolls its marble and
    Chromium B.S.U. flies its ship with the mouse."""

    def __init__(self, moves, seconds, button=None):
        self.moves, self.seconds, self.button = moves, seconds, button

    def run(self, ui):
        if self.button:
            ui.xdo("mousedown", self.button)
        end = time.monotonic() + self.seconds
        i = 0
        while time.monotonic() < end:
            dx, dy = self.moves[i % len(self.moves)]
            ui.xdo("mousemove_relative", "--", dx, dy)
            i += 1
            time.sleep(0.1)
        if self.button:
            ui.xdo("mouseup", self.button)

    def __str__(self):
        return "steer %gs%s" % (self.seconds, " firing" if self.button else "")


class Look:
    """Nothing pressed: the screen the last step led to, for `wait` seconds."""

    def run(self, ui):
        pass

    def __str__(self):
        return "-"


# The truth each step carries, for game_phases_test.py to judge the phases
# by. `screen`: what the step leads to and stays on until the next step,
# MENU, MAP (a world map) or PLAY; None for a screen not judged (a level's
# intro, a cutscene, a pause that lasts a moment, a cursor moved within the
# same menu). `loads`: LOAD, the step starts a load (the game reads a level
# or builds a world it did not hold); MAY, it may load or unload (a menu
# that reads its pictures, a level left for the map, a death that restarts
# the level); None, it loads nothing. `frames`: the step lasts at least
# that many frames, counted from its start (game_drive.py waits for them
# besides `wait`): the phase detector judges frames (rates over 30 frames
# either side of a change), and a busy machine halves a game's frame rate.
MENU, MAP, PLAY = "menu", "map", "play"
LOAD, MAY = "load", "may"
# Frames for a screen the test judges: the detector's 30-frame windows, the
# first frames after a key (the game's reaction) left out, and room.
SCREEN = 45

Step = namedtuple("Step", "name action wait screen loads frames", defaults=(None, None, 0))
# present: the call that ends the game's frames; gl: drawn through OpenGL
# (llvmpipe's driver allocates in every frame) rather than in software.
Game = namedtuple("Game", "name command window_class screen home_files pointer_rest present gl steps")

NEVERBALL_RC = """fullscreen 0
width 640
height 480
player tux
sound_volume 0
music_volume 0
"""


GAMES = {g.name: g for g in [
    # The title menu starts with its focus on Replay, and the level sets on
    # Back: Neverball's menus are clicked, not keyed. (In a 320x240 window it
    # drew twice the frames, and stopped drawing for 2 to 150 s at a time.)
    # The level sets and the level list read their pictures (loads by
    # memory, each time the list shows). Reloading the level played before
    # builds it in memory the last one freed: thousands of allocations that
    # keep little. Screens between loads need fewer frames to stand apart.
    # A ball tilted off the floor restarts the level (a load in play, which
    # the test's slack of 2 loads covers).
    Game("neverball", ["/usr/games/neverball"], "^neverball$", "1024x768x24",
         {".neverball/neverballrc": NEVERBALL_RC}, (1023, 767), "SDL_GL_SwapWindow", True, [
             Step("title menu", Look(), 2, MENU, frames=30),
             Step("Play: level sets", Click(320, 192), 1, MENU, MAY, 30),
             Step("Neverball Easy: its levels", Click(175, 90), 1, MENU, MAY, 30),
             Step("level 01: load, its intro", Click(60, 82), 1, None, LOAD, 20),
             # "Ready?", "Go!": the level runs, the ball cannot move yet.
             Step("click to begin: ready, go", Click(320, 380), 2.5),
             Step("play: tilt forward", Key("Up", hold=3), 0, PLAY, frames=20),
             Step("play: tilt left", Key("Left", hold=2), 0, PLAY, frames=20),
             Step("play: tilt back", Key("Down", hold=2), 0, PLAY, frames=20),
             # The pause menu draws over the level at ~250 allocations a
             # frame, and play at 270 to 900 as the view changes, with
             # nothing loaded between: not judged apart from play.
             Step("Escape: paused", Key("Escape"), 1),
             Step("Quit: level list", Click(416, 292), 1, MENU, MAY, 30),
             Step("level 01 again: load, its intro", Click(60, 82), 1, None, LOAD, 20),
             Step("click to begin again", Click(320, 380), 2.5),
             Step("play: tilt right", Key("Right", hold=2), 0, PLAY, frames=25),
             Step("play: tilt forward", Key("Up", hold=2), 0, PLAY, frames=25),
             Step("Escape: paused", Key("Escape"), 1),
             Step("Quit: level list", Click(416, 292), 1, MENU, MAY, 30),
         ]),
    # It reads everything at start-up: a new game makes ~4,000 allocations
    # and keeps nothing, the second ~800 (27,000 when llvmpipe compiles the
    # shaders of play then: MAY). The menu Escape leads to reads its
    # pictures (~9,000 allocations, +256 KiB); play makes its explosions'
    # textures when it first needs them.
    Game("chromium-bsu", ["/usr/games/chromium-bsu", "-w", "-v", "1", "-na"], "^chromium-bsu$", "1024x768x24",
         {}, (1023, 767), "SDL_GL_SwapWindow", True, [
             Step("title menu", Look(), 2, MENU, frames=SCREEN),
             Step("new game: play", Key("Return"), 1, PLAY, MAY, SCREEN),
             Step("play: fly and fire", Steer([(40, 0), (40, 0), (-40, -10), (-40, 10)], 8, button=1), 1, PLAY, MAY,
                  SCREEN),
             Step("Escape: menu", Key("Escape"), 1, MENU, MAY, SCREEN),
             Step("new game again", Key("Return"), 1, PLAY, None, SCREEN),
             Step("play: fly and fire again", Steer([(-40, 0), (40, 0)], 6, button=1), 1, PLAY, MAY, SCREEN),
         ]),
    # Its menus allocate at one rate (one steady phase). A race opens on
    # ~4.5 s of the camera flying to Tux (keys ignored), at the rate of the
    # race itself. A race once made 49,000 allocations and kept 8 MiB in
    # one frame while Tux steered (MAY).
    Game("etr", ["/usr/games/etr"], "^etr$", "800x600x24", {}, (799, 599), "glXSwapBuffers", True, [
             Step("player select", Look(), 3, MENU, frames=SCREEN),
             Step("Enter: main menu", Key("Return"), 1.5, MENU, frames=SCREEN),
             Step("Enter an event: event select", Key("Return"), 1.5, MENU, frames=SCREEN),
             Step("Continue: the cup's races", Key("Return"), 1.5, MENU, frames=SCREEN),
             Step("Race!: load the course", Key("Return"), 6, None, LOAD),
             Step("race: paddle", Key("Up", hold=3), 0, PLAY, MAY),
             Step("race: left", Key("Left", hold=1.5), 0, PLAY, MAY),
             Step("race: right", Key("Right", hold=1.5), 0, PLAY, MAY, SCREEN),
             Step("Escape: race aborted", Key("Escape"), 2),
             Step("Return: the cup's races", Key("Return"), 1.5, MENU, MAY, SCREEN),
         ]),
    # A new profile's Story Mode plays its intro cutscene by itself on the
    # world map; Escape skips it (the map is built then: a load). A level
    # opens on an intro screen that waits for a key. Welcome to
    # Antarctica's snowball kills a Tux that runs on, and the level
    # restarts (MAY); a pause pressed while it respawns is lost: play is
    # short. Its menus are keyed (Continue is first; a held key repeats).
    # Its title draws ~6 frames a second on a busy machine.
    Game("supertux", ["/usr/games/supertux2", "-w", "-g", "640x480", "--disable-sound", "--disable-music"],
         "^supertux2$", "1024x768x24", {}, (1023, 767), "SDL_GL_SwapWindow", True, [
             Step("title menu", Look(), 2, MENU, frames=30),
             Step("Start Game: its menu", Key("Return"), 1, MENU, frames=20),
             Step("Story Mode: world map, intro cutscene", Key("Return"), 3, None, LOAD, SCREEN),
             Step("Escape: skip it, world map", Key("Escape"), 1.5, MAP, LOAD, SCREEN),
             # Tux walks to the level's dot in about 18 frames: Return
             # pressed before he is there enters nothing (a machine at a
             # load of 18 drew 3 frames in the 1.5 s).
             Step("walk to the first level", Key("Down"), 1.5, MAP, frames=25),
             Step("enter it: load, level intro", Key("Return"), 2, None, LOAD, 30),
             Step("start the level", Key("Return"), 1, PLAY, frames=20),
             Step("play: run right", Key("Right", hold=2), 0, PLAY),
             Step("play: jump", Key("space", hold=1), 0, PLAY),
             Step("play: run left", Key("Left", hold=2), 2, PLAY, MAY, SCREEN),
             Step("Escape: pause menu", Key("Escape"), 1),
             Step("(down to Restart Level)", Key("Down", hold=0.2), 0.6),
             Step("(down to Options)", Key("Down", hold=0.2), 0.6),
             Step("(down to Abort Level)", Key("Down", hold=0.2), 0.6),
             Step("Abort Level: world map", Key("Return"), 2, MAP, MAY, SCREEN),
         ]),
    # Enigma ignores SIGTERM: it quits from its title menu. It draws in
    # software, a menu only when it changes: its title one frame some 8 s
    # after it starts, its level grid ~7 frames a second. A level redraws
    # everything once ~4 s after it opens (~1,100 allocations, none kept).
    # Escape's menu copies the screen (+1.2 MiB, freed when it closes).
    Game("enigma", ["/usr/games/enigma", "-w", "--nosound", "--nomusic", "--robinson"], "^enigma$",
         "1024x768x24", {}, (1023, 767), "SDL_UpdateRects", False, [
             Step("title menu", Look(), 1.5, frames=1),
             # Its first ~10 frames draw the levels' previews (start-up).
             Step("Start Game: level grid", Click(320, 189), 1.5, MENU, frames=SCREEN + 15),
             Step("first level: load", Key("Return", hold=0.15), 1, None, LOAD, 40),
             Step("play: roll the marble", Steer([(20, 0), (20, 0), (0, 20), (-20, 0), (-20, 0), (0, -20)], 6), 1,
                  PLAY, MAY, SCREEN),
             Step("Escape: in-game menu", Key("Escape", hold=0.15), 1.5, None, MAY),
             Step("Abort Level: level grid", Click(320, 326), 1.5, MENU, MAY, 30),
             Step("Right: another level", Key("Right", hold=0.15), 1),
             Step("second level: load", Key("Return", hold=0.15), 1, None, LOAD, 40),
             Step("play: roll the marble", Steer([(0, 20), (20, 0), (0, -20), (-20, 0)], 6), 1, PLAY, MAY, SCREEN),
             Step("Escape: in-game menu", Key("Escape", hold=0.15), 1.5, None, MAY),
             Step("Abort Level: level grid", Click(320, 326), 2, None, MAY),
             Step("Main Menu: title menu", Click(545, 447), 2, None, MAY),
             Step("Quit: the game exits", Click(320, 373), 2),
         ]),
]}
