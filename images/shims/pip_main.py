# "python3 -m pip" in a coderunner job (images/build.sh installs this as
# pip/__main__.py): jobs run without network access, so say so and fail.
import sys

sys.stderr.write(
    "coderunner: 'python3 -m pip' cannot install packages here: jobs run without network access.\n"
    "Preinstalled packages and their versions: GET /v1/languages.\n"
    'Operators add packages to the runtime images at build time (images/README.md, "Adding packages").\n'
)
sys.exit(1)
