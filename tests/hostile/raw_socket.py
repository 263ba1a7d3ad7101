# Attack: open raw and packet sockets (spoofing, sniffing, ICMP tunnels).
# Contained when the kernel refuses for lack of CAP_NET_RAW.
import socket
for fam, typ, proto, name in [(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP, "raw-icmp"),
                              (socket.AF_PACKET, socket.SOCK_RAW, 0, "packet")]:
    try:
        socket.socket(fam, typ, proto)
        print("OPENED", name)
    except OSError as e:
        print("denied", name, e.errno)
