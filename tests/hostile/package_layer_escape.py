# Attack: a job given a package layer tries to reach past it. It writes
# into its own layer (a change the next tenant of that set would import),
# lists the directory of every layer (to learn which sets others use),
# follows its link's parent, and replaces its link with one of its own.
# Contained when every write fails: EACCES for a file (root's, 0644),
# EROFS where the read-only mount answers first; the listing with EACCES,
# the link cannot be replaced (the workspace is read-only), and the job's
# own packages still import.
import errno, os

LINK = "/workspace/.coderunner-packages"
layer = os.readlink(LINK)


def attempt(name, fn):
    try:
        fn()
        print(name, "done")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, str(e.errno)))


def write_into_layer():
    with open(os.path.join(layer, "python", "crtiny", "__init__.py"), "a") as f:
        f.write("VERSION = 'owned'\n")


def plant_module():
    with open(os.path.join(layer, "python", "sitecustomize.py"), "w") as f:
        f.write("print('owned')\n")


def chmod_layer():
    os.chmod(os.path.join(layer, "python"), 0o777)


attempt("WRITE", write_into_layer)
attempt("PLANT", plant_module)
attempt("CHMOD", chmod_layer)
attempt("LIST", lambda: os.listdir(os.path.dirname(layer)))
attempt("RELINK", lambda: (os.unlink(LINK), os.symlink("/tmp", LINK)))
import crtiny  # noqa: E402

print("VERSION", crtiny.VERSION)
