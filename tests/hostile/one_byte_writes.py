# Attack: 1 MiB on stdout, one write(2) per byte. Each write can reach the
# service as an engine frame of its own; one live event per frame is ~80 MB
# in the service, more for each /events subscriber.
# Contained when the service's memory stays within bounds with subscribers
# attached, each subscriber receives exactly the 1 MiB, and the result holds
# it exactly (1 MiB is the default cap, so not truncated).
import os

for _ in range(1 << 20):
    os.write(1, b"x")
