# Attack: ignore SIGTERM and SIGINT and keep running, hoping the service
# only asks politely. Contained when the wall clock kills it anyway.
trap '' TERM INT HUP
while :; do :; done
