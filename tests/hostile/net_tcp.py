# Attack: open a TCP connection to the internet and to the host's gateway.
# Contained when every connect fails (no route: the namespace has only lo).
import socket
for host, port in [("1.1.1.1", 53), ("8.8.8.8", 443), ("10.0.0.1", 80), ("172.17.0.1", 2375)]:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, port))
        print("CONNECTED", host, port)
    except OSError as e:
        print("blocked", host, port, e.errno)
