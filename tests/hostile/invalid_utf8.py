# Attack: emit bytes that are not UTF-8 (and a NUL) to break JSON encoding
# of the response.
import sys
sys.stdout.buffer.write(b"ok \xff\xfe \xc3\x28 \xed\xa0\x80 nul:\x00 end")
sys.stderr.buffer.write(b"\x80err")
