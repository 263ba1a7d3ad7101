# Attack: print 100 MB to stdout to exhaust the service's memory.
# Contained when the response holds exactly the cap and the service's RSS
# stays flat (the cap is applied while streaming).
import sys
block = "y" * (1 << 20)
for _ in range(100):
    sys.stdout.write(block)
