# Attack: install a package at run time, as LLM-written code often does
# first (pip install, pip3 install, python3 -m pip install: the command is
# this program's argv). A job has no network, so the images' shims must fail
# at once with exit code 1 and say why ("without network access") rather
# than hang on a resolver or end as a timeout; nothing gets installed.
import os
import sys

cmd = sys.argv[1:] or ["pip", "install", "requests-toolbelt"]
if cmd[0] == "python3":
    cmd[0] = sys.executable
os.execvp(cmd[0], cmd)
