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


Step = namedtuple("Step", "name action wait")
Game = namedtuple("Game", "name command window_class screen home_files pointer_rest steps")

NEVERBALL_RC = """fullscreen 0
width 640
height 480
player tux
sound_volume 0
music_volume 0
"""

GAMES = {g.name: g for g in [
    # The title menu starts with its focus on Replay, and the level sets on
    # Back: Neverball's menus are clicked, not keyed.
    Game("neverball", ["/usr/games/neverball"], "^neverball$", "1024x768x24",
         {".neverball/neverballrc": NEVERBALL_RC}, (1023, 767), [
             Step("title menu", Look(), 8),
             Step("Play: level sets", Click(320, 192), 5),
             Step("Neverball Easy: its levels", Click(175, 90), 5),
             Step("level 01: load, its intro", Click(60, 82), 6),
             Step("click to begin: ready, go", Click(320, 380), 4),
             Step("play: tilt forward", Key("Up", hold=4), 0),
             Step("play: tilt left", Key("Left", hold=3), 0),
             Step("play: tilt back", Key("Down", hold=3), 1),
             Step("Escape: paused", Key("Escape"), 3),
             Step("Quit: level list", Click(416, 292), 5),
             Step("level 01 again: load, its intro", Click(60, 82), 6),
             Step("click to begin again", Click(320, 380), 4),
             Step("play: tilt right", Key("Right", hold=3), 0),
             Step("play: tilt forward", Key("Up", hold=3), 1),
             Step("Escape: paused", Key("Escape"), 3),
             Step("Quit: level list", Click(416, 292), 5),
             Step("Back: level sets", Click(60, 38), 4),
             Step("Back: title menu", Click(60, 38), 6),
         ]),
    Game("chromium-bsu", ["/usr/games/chromium-bsu", "-w", "-v", "1", "-na"], "^chromium-bsu$", "1024x768x24",
         {}, (1023, 767), [
             Step("title menu", Look(), 8),
             Step("new game: load, play", Key("Return"), 4),
             Step("play: fly and fire", Steer([(40, 0), (40, 0), (-40, -10), (-40, 10)], 20, button=1), 1),
             Step("Escape: menu", Key("Escape"), 6),
             Step("new game again", Key("Return"), 4),
             Step("play: fly and fire again", Steer([(-40, 0), (40, 0)], 10, button=1), 1),
         ]),
    Game("etr", ["/usr/games/etr"], "^etr$", "800x600x24", {}, (799, 599), [
             Step("player select", Look(), 10),
             Step("Enter: main menu", Key("Return"), 4),
             Step("Enter an event: event select", Key("Return"), 4),
             Step("Continue: the cup's races", Key("Return"), 4),
             Step("Race!: load the course", Key("Return"), 12),
             Step("race: paddle", Key("Up", hold=5), 0),
             Step("race: left", Key("Left", hold=2), 0),
             Step("race: right", Key("Right", hold=2), 3),
             Step("Escape: race aborted", Key("Escape"), 4),
             Step("Return: the cup's races", Key("Return"), 4),
             Step("Escape: event select", Key("Escape"), 4),
         ]),
    # A new profile's Story Mode plays its intro cutscene by itself on the
    # world map; Escape skips it. A level opens on an intro screen that
    # waits for a key. Welcome to Antarctica's snowball kills a Tux that
    # runs on, and a pause pressed while it respawns is lost: play is short.
    # Its menus are keyed (Continue is first; a held key repeats).
    Game("supertux", ["/usr/games/supertux2", "-w", "-g", "640x480", "--disable-sound", "--disable-music"],
         "^supertux2$", "1024x768x24", {}, (1023, 767), [
             Step("title menu", Look(), 8),
             Step("Start Game: its menu", Key("Return"), 3),
             Step("Story Mode: world map, intro cutscene", Key("Return"), 12),
             Step("Escape: skip it, world map", Key("Escape"), 6),
             Step("walk to the first level", Key("Down"), 4),
             Step("enter it: load, level intro", Key("Return"), 10),
             Step("start the level", Key("Return"), 3),
             Step("play: run right", Key("Right", hold=2), 0),
             Step("play: jump", Key("space", hold=1), 0),
             Step("play: run left", Key("Left", hold=2), 3),
             Step("Escape: pause menu", Key("Escape"), 1),
             Step("(down to Restart Level)", Key("Down", hold=0.2), 0.6),
             Step("(down to Options)", Key("Down", hold=0.2), 0.6),
             Step("(down to Abort Level)", Key("Down", hold=0.2), 0.6),
             Step("Abort Level: world map", Key("Return"), 6),
             Step("Escape: world map menu", Key("Escape"), 1),
             Step("(down to Options)", Key("Down", hold=0.2), 0.6),
             Step("(down to Leave World)", Key("Down", hold=0.2), 0.6),
             Step("Leave World: title menu", Key("Return"), 6),
         ]),
    # Enigma ignores SIGTERM: it quits from its title menu.
    Game("enigma", ["/usr/games/enigma", "-w", "--nosound", "--nomusic", "--robinson"], "^enigma$",
         "1024x768x24", {}, (1023, 767), [
             Step("title menu", Look(), 8),
             Step("Start Game: level grid", Click(320, 189), 5),
             Step("first level: load", Key("Return", hold=0.15), 6),
             Step("play: roll the marble", Steer([(20, 0), (20, 0), (0, 20), (-20, 0), (-20, 0), (0, -20)], 8), 1),
             Step("Escape: in-game menu", Key("Escape", hold=0.15), 2),
             Step("Abort Level: level grid", Click(320, 326), 5),
             Step("Right: another level", Key("Right", hold=0.15), 1),
             Step("second level: load", Key("Return", hold=0.15), 6),
             Step("play: roll the marble", Steer([(0, 20), (20, 0), (0, -20), (-20, 0)], 8), 1),
             Step("Escape: in-game menu", Key("Escape", hold=0.15), 2),
             Step("Abort Level: level grid", Click(320, 326), 5),
             Step("Main Menu: title menu", Click(545, 447), 4),
             Step("Quit: the game exits", Click(320, 373), 3),
         ]),
]}
