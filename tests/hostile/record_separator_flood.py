# Attack: 1 MiB of single "\x1e" bytes, one write(2) per byte, alternating
# between stdout and stderr (512 KiB each). 0x1e starts coderunner-init's
# trailer marker, so each byte is a possible trailer for the service's
# marker scans to hold back and rescan; each write, and each switch of
# stream, a possible live event of its own (one event per byte is ~80 MB in
# the service, more for each /events subscriber).
# Contained when the service's memory stays within bounds with subscribers
# attached, each subscriber receives exactly the bytes of both streams, and
# the result holds both exactly (under the 1 MiB default cap per stream).
import os

for _ in range(1 << 19):
    os.write(1, b"\x1e")
    os.write(2, b"\x1e")
