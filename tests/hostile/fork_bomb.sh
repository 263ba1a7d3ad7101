# Attack: the classic bash fork bomb. Contained by PidsLimit: forks fail,
# the host and the service stay responsive, and the wall clock ends it.
bomb() { bomb | bomb & }
bomb
sleep 2
echo "still here"
