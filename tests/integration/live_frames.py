"""The frame a game under `memframe run` is in, as it runs: a reader of
the run's live socket (proto/FORMAT.md, "Live socket") that keeps only the
highest frame number its event batches carry. game_drive.py waits on it so
that each screen a script shows lasts a number of frames, not of seconds:
under Mesa's software renderer a busy machine halves a game's frame rate,
and the phase detector judges frames.

The socket sends records as the capture file holds them: varint stream,
varint length, then a Packet. Only Packet.events (field 4), an EventBatch,
is read: its base_frame (field 3) plus the sum of its frame_delta column
(field 9, packed, one per event, each from the previous event) is the
frame of its last event. Every other field is skipped by its wire type.
"""
import socket
import threading

PACKET_EVENTS = 4
BATCH_BASE_FRAME = 3
BATCH_FRAME_DELTA = 9
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def varint(data, pos):
    """(value, next position) of the varint at data[pos]."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(data):
    """(field number, wire type, value) of a message: value is an int for
    a varint, bytes for a length-delimited field, None for fixed ones."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = varint(data, pos)
        elif wire == LENGTH:
            size, pos = varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            value, pos = None, pos + (8 if wire == FIXED64 else 4)
        else:
            raise ValueError("wire type %d" % wire)
        yield number, wire, value


def packed_sum(data):
    """Sum of a packed varint column. Frame deltas are almost all 0 or 1,
    one byte each: bytes below 0x80 are summed in C."""
    if max(data, default=0) < 0x80:
        return sum(data)
    total = pos = 0
    while pos < len(data):
        value, pos = varint(data, pos)
        total += value
    return total


def batch_last_frame(batch):
    base = deltas = 0
    for number, wire, value in fields(batch):
        if number == BATCH_BASE_FRAME and wire == VARINT:
            base = value
        elif number == BATCH_FRAME_DELTA and wire == LENGTH:
            deltas += packed_sum(value)
    return base + deltas


class LiveFrames:
    """Follows a live socket on a thread of its own; `frame` is the
    highest frame seen so far (0 before any event)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.frame = 0
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    return
                buffer += chunk
                buffer = self.take_records(buffer)
        except (OSError, IndexError, ValueError):
            return  # the run ended, or the stream is not one this reads: waits fall back to time

    def take_records(self, buffer):
        """Reads every whole record in `buffer`; returns what is left."""
        pos = 0
        while True:
            try:
                _, at = varint(buffer, pos)
                size, at = varint(buffer, at)
            except IndexError:
                return buffer[pos:]
            if at + size > len(buffer):
                return buffer[pos:]
            for number, wire, value in fields(buffer[at:at + size]):
                if number == PACKET_EVENTS and wire == LENGTH:
                    self.advance(batch_last_frame(value))
            pos = at + size

    def advance(self, frame):
        if frame > self.frame:
            with self.changed:
                self.frame = frame
                self.changed.notify_all()

    def wait_until(self, frame, timeout):
        """True once `frame` is reached, False after `timeout` seconds."""
        with self.changed:
            return self.changed.wait_for(lambda: self.frame >= frame, timeout)

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
