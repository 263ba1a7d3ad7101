# Attack: `truncate -s 3G` a file in /output: a 3 GiB size with nothing
# allocated, then the largest size RLIMIT_FSIZE lets through (15 MiB, past
# the per-file artifact cap and any small volume's quota).
# Contained when the 3 GiB truncate is refused (EFBIG: "File too large")
# and the 15 MiB one still counts its size, so the job is stopped and the
# file is not kept.
truncate -s 3G /output/t.bin
echo "truncate 3G rc=$?"
truncate -s 15M /output/t.bin
echo "truncate 15M rc=$?"
find /output/t.bin -printf 't.bin size=%s blocks=%b\n'
sleep 5
echo "NOT STOPPED"
