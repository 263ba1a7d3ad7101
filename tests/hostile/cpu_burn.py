# Attack: burn CPU time under a generous wall clock; RLIMIT_CPU must end it.
while True:
    pass
