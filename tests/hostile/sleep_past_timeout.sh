# Attack: sleep far past the wall-clock limit (uses no CPU, so only the
# service's own timer can end it).
sleep 300
