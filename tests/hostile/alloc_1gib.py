# Attack: allocate and touch 1 GiB, four times the default memory limit.
# Contained when the kernel kills it inside the container: status oom.
block = bytearray(1 << 30)
for i in range(0, len(block), 4096):
    block[i] = 1
print("ALLOCATED")
