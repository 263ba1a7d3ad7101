# Attack: 5 MB of random binary bytes, NULs included, on stdout, to break
# the JSON response.
head -c 5000000 /dev/urandom
