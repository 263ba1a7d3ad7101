# Attack: hide bytes from the output checks in a directory the job can
# write but nobody can list (chmod 0300), hoping a walker that cannot look
# inside counts nothing there, then lock it completely (chmod 000).
# Contained when the hidden bytes are still counted: the job is stopped at
# the artifact total cap and nothing over the cap is kept.
mkdir /output/hidden
chmod 300 /output/hidden
for i in $(seq 1 40); do head -c 4194304 /dev/zero > /output/hidden/f$i; done
chmod 000 /output/hidden
sleep 2
echo "hid 160 MiB"
