# Attack: one 50 MB line with no newline, to break line-based buffering.
# Contained when exactly the cap comes back, flagged truncated.
import sys
sys.stdout.write("z" * (50 << 20))
