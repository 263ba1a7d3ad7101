# coderunner's Python prestart (languages.python.prestart): run as
# `python3 -c THIS [MODULE]...` by coderunner-init in a pooled container
# before its job exists (src/init/prestart.h). It imports each MODULE (the
# language's preload, when the job's code names one), with stdout and
# stderr on /dev/null, writes the ready marker to the container's stdout
# when it was given modules (coderunner/isolation/init_trailer.h:
# kPrestartReadyMarker), then reads its release from descriptor 3: the stdin
# file's path ("" for /dev/null) and the job's argv, NUL-terminated. It then
# runs the script as `python3 SCRIPT ARGS...` would: a fresh __main__ with
# the globals Python gives a script, sys.argv, sys.path[0] the script's
# directory, the same traceback and exit status. README.md lists what a
# program can still tell. Nothing loads from the working directory before
# the release: the job's files are not there yet (or, in a container that
# serves several jobs, an earlier job's may still be). An argv it cannot run this
# way (interpreter options) is exec'd as it is.
import os, sys
# Nothing under the working directory is on the path while the preload
# loads (a PYTHONPATH entry there, such as an earlier job's package layer,
# included); the job's own path comes back with its release.
job_path = [p for p in sys.path if p != '']
here = os.getcwd()
sys.path[:] = [p for p in job_path if p != here and not p.startswith(here + os.sep)]
saved = os.dup(1), os.dup(2)
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
os.dup2(null, 2)
os.close(null)
for name in sys.argv[1:]:
    try:
        __import__(name)
    except BaseException:
        pass
try:
    sys.stdout.flush()
    sys.stderr.flush()
except BaseException:
    pass
# What is loaded now lives as long as the process: the collector, and the
# collection at the end, look only at what the program makes.
__import__('gc').freeze()
# Loaded: the warm pool hands this container out from now on (it reads
# this on the container's stdout, before any job's output exists).
if sys.argv[1:]:
    os.write(saved[0], b'\x1ecoderunner-prestart ready\n')
chunks = []
while True:
    chunk = os.read(3, 65536)
    if not chunk:
        break
    chunks.append(chunk)
os.close(3)
os.dup2(saved[0], 1)
os.dup2(saved[1], 2)
os.close(saved[0])
os.close(saved[1])
words = [os.fsdecode(w) for w in b''.join(chunks).split(b'\0')[:-1]]
if words[0]:
    null = os.open(words[0], os.O_RDONLY | os.O_NOFOLLOW)
    os.dup2(null, 0)
    os.close(null)
argv = words[1:]
if len(argv) < 2 or argv[1].startswith('-'):
    os.execvp(argv[0], argv)
sys.argv[:] = argv[1:]
sys.path[:] = [os.path.dirname(os.path.realpath(argv[1]))] + job_path
# What the imports above found missing (a PYTHONPATH directory such as the
# job's package layer, linked in with the job) must be looked for again.
sys.path_importer_cache.clear()
main = type(sys)('__main__')
main.__dict__.update(
    __annotations__={}, __builtins__=sys.modules['builtins'], __cached__=None,
    __file__=argv[1], __package__=None, __spec__=None,
    __loader__=sys.modules['_frozen_importlib_external'].SourceFileLoader('__main__', argv[1]))
sys.modules['__main__'] = main
status, interrupted = 0, False
try:
    with open(argv[1], 'rb') as chunk:
        code = compile(chunk.read(), argv[1], 'exec')
    del chunks, chunk
    exec(code, main.__dict__)
except SystemExit as e:
    # As the interpreter ends on one: None is 0, a number is the status,
    # anything else is printed and is 1.
    if e.code is None:
        status = 0
    elif isinstance(e.code, int):
        status = e.code
    else:
        try:
            print(e.code, file=sys.stderr)
        except BaseException:
            pass
        status = 1
except BaseException as e:
    sys.excepthook(type(e), e, e.with_traceback(e.__traceback__.tb_next).__traceback__)
    status, interrupted = 1, isinstance(e, KeyboardInterrupt)
e = None
# The interpreter's ending, as far as a program can see it, without the
# teardown of every module (a tenth of a second with the data stack):
# non-daemon threads joined, atexit run, the program's own objects
# finalized (its __main__), standard streams flushed.
threading = sys.modules.get('threading')
if threading is not None:
    threading._shutdown()
__import__('atexit')._run_exitfuncs()
main.__dict__.clear()
__import__('gc').collect()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except BaseException:
        status = status or 120
if interrupted:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
os._exit(status & 0xff if isinstance(status, int) else 1)
