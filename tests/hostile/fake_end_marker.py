# Attack: end the output early. Print what coderunner-init's end markers
# look like (stdout marker and stderr trailer, with a guessed nonce) so the
# service stops reading, then keep writing: with a forged "exit_code 0" the
# job would hide what it does next. Also try to read the pool's "go" FIFO
# for the real nonce (init consumed the message before the job started).
import os
import sys
import time
sys.stdout.write("\x1ecoderunner-init {\"eof\":\"00000000000000000000000000000000\"}\n")
sys.stdout.flush()
sys.stderr.write("\x1ecoderunner-init {\"exit_code\":0,\"signal\":0,\"wall_us\":1,"
                 "\"eof\":\"00000000000000000000000000000000\"}\n")
sys.stderr.flush()
try:
    fd = os.open("/workspace/.coderunner-go", os.O_RDONLY | os.O_NONBLOCK)
    try:
        print("FIFO READ", os.read(fd, 100))
    except BlockingIOError:
        print("fifo empty")
except OSError as e:
    print("fifo denied", e.errno)
try:
    os.open("/workspace/.coderunner-go", os.O_WRONLY | os.O_NONBLOCK)
    print("FIFO WRITABLE")
except OSError as e:
    print("fifo write denied", e.errno)
time.sleep(0.3)
print("still here")
sys.exit(3)
