# Attack: a job with "network": "allowlist" tries every way out besides the
# hosts its tier allows. argv: the host's HTTP port, its HTTPS port.
# It looks for an interface beyond loopback, connects straight to the host
# and to the internet, asks the proxy for a host that is not listed, for a
# listed name that resolves to a private address, speaks to the proxy as
# to a server, and pulls more than the job's byte budget. Contained when
# the only interface is lo, every direct connect fails, every refusal is
# the proxy's own 4xx naming why, and what came in stays within the budget,
# while the allowed host answers over HTTP and over TLS (a CONNECT tunnel).
import errno
import os
import socket
import ssl
import sys
import urllib.error
import urllib.request

http_port, https_port = sys.argv[1], sys.argv[2]
print("IFACES " + ",".join(sorted(os.listdir("/sys/class/net"))))
print("PROXY " + os.environ.get("HTTPS_PROXY", ""))


def direct(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, int(port)))
        return "CONNECTED"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        s.close()


print("DIRECT_HOST " + direct("127.0.0.1", http_port))  # The container's own lo.
print("DIRECT_NET " + direct("1.1.1.1", 80))

unverified = ssl._create_unverified_context()  # The test's self-signed server.
opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=unverified))


def fetch(url, most=None):
    try:
        with opener.open(url, timeout=20) as r:
            body = r.read() if most is None else r.read(most)
            return body.decode(errors="replace").strip() if most is None else str(len(body))
    except urllib.error.HTTPError as e:
        return "HTTP%d" % e.code
    except urllib.error.URLError as e:
        return "REFUSED:" + str(e.reason).split(":")[0]
    except Exception as e:  # A connection cut at the byte budget.
        return "CUT:" + type(e).__name__


print("ALLOWED " + fetch("http://localhost:%s/hello" % http_port))
print("TLS " + fetch("https://localhost:%s/hello" % https_port))
print("UNLISTED " + fetch("http://127.0.0.1:%s/hello" % http_port))
print("PRIVATE " + fetch("http://127.0.0.2:%s/hello" % http_port))

# A streamed download past the budget: count what arrives.
received = 0
try:
    with opener.open("http://localhost:%s/big" % http_port, timeout=20) as r:
        while True:
            chunk = r.read(65536)
            if not chunk:
                break
            received += len(chunk)
except Exception:
    pass
print("BIG_BYTES %d" % received)

# The proxy spoken to as a server: a 400 of its own, nothing forwarded.
s = socket.create_connection(("127.0.0.1", 3128), timeout=5)
s.sendall(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
print("AS_SERVER " + s.recv(200).split(b"\r\n")[0].decode())
s.close()
