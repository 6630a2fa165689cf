#!/usr/bin/env python3
"""Writes the corpus's hostile_*.mfc seeds: captures of a few KB that claim
far more than they hold, and one with a flipped bit, so that the fuzzer
starts from the records that made readers use gigabytes (README.md).

    tests/fuzz/make_hostile_seeds.py tests/fuzz/corpus
    tests/fuzz/make_hostile_seeds.py --measure DIR   # the full-size captures of issue 13

Needs the zstd command. Packets are encoded by hand (memframe.proto's field
numbers): protocol 1, the simplest batch layout.
"""
import struct
import subprocess
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, value=None, payload=None):
    if payload is not None:
        return varint(number << 3 | 2) + varint(len(payload)) + payload
    return varint(number << 3) + varint(value)


def record(stream, packet):
    return varint(stream) + varint(len(packet)) + packet


# Packet.hello: protocol 1, pid 42, /opt/game, clock pair 1000 = 1 ms.
HELLO = field(1, payload=field(1, 1) + field(2, 42) + field(3, payload=b"/opt/game") + field(5, 1000) +
              field(6, 1000000))


def stack(stack_id, frame_bytes):
    # Packet.stacks: one StackDef, frames packed as given.
    return field(3, payload=field(1, payload=field(1, stack_id) + field(2, payload=frame_bytes)))


def one_alloc():
    # Packet.events: thread 7, one ALLOC of 64 bytes at 0x2000 by stack 1.
    b = field(1, 7) + field(2, 2000) + field(4, payload=varint(1)) + field(5, payload=varint(0x2000))
    b += field(6, payload=varint(64)) + field(7, payload=varint(1))
    b += field(8, payload=varint(0)) + field(9, payload=varint(0)) + field(10, payload=varint(0))
    return field(4, payload=b)


def snapshots(name_bytes, count):
    return b"".join(record(0, field(10, payload=field(1, payload=b"a" * name_bytes))) for _ in range(count))


def capture(body, level=19):
    z = subprocess.run(["zstd", f"-{level}", "--check", "-c"], input=body, capture_output=True, check=True).stdout
    return b"MEMFRAME" + struct.pack("<I", 1) + z


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read_varint(buf, at):
    n = shift = 0
    while True:
        b = buf[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n, at


def one_frame_a_record(records):
    # As the recorder writes since frames are checked: a frame per flush.
    frames, at = [], 0
    while at < len(records):
        start = at
        _, at = read_varint(records, at)
        size, at = read_varint(records, at)
        at += size
        frames.append(subprocess.run(["zstd", "-3", "--check", "-c"], input=records[start:at],
                                     capture_output=True, check=True).stdout)
    return b"MEMFRAME" + struct.pack("<I", 1) + b"".join(frames)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        out = sys.argv[2]
        # One stack of 8 Mi frames (the 3 KB capture of issue 13); 40 snapshot
        # names of 64 MiB (the 77 KB one).
        write(out + "/deep_stack.mfc", capture(record(1, HELLO) + record(1, stack(1, b"\x10" * (8 << 20))) +
                                               record(1, one_alloc())))
        write(out + "/huge_names.mfc", capture(record(1, HELLO) + record(1, one_alloc()) +
                                               snapshots((64 << 20) - 16, 40)))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    write(out + "/hostile_deep_stack.mfc", capture(record(1, HELLO) + record(1, stack(1, b"\x10" * (8 << 20))) +
                                                   record(1, one_alloc())))
    write(out + "/hostile_huge_names.mfc", capture(record(1, HELLO) + record(1, one_alloc()) +
                                                   snapshots(32 << 20, 16)))
    kinds = field(4, payload=field(1, 7) + field(4, payload=b"\x05" * ((1 << 20) + 1)))
    write(out + "/hostile_many_events.mfc", capture(record(1, HELLO) + record(1, one_alloc()) + record(1, kinds)))
    with open(out + "/agent_game_loop_2threads_v3.records", "rb") as f:
        flipped = bytearray(one_frame_a_record(f.read()))
    flipped[len(flipped) // 2] ^= 0x08
    write(out + "/hostile_bit_flip.mfc", bytes(flipped))


if __name__ == "__main__":
    main()
