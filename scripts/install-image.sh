#!/bin/sh
# Install dynamo-render from a source tree into a self-contained virtualenv.
#
# usage: install-image.sh SOURCE_DIR PREFIX
#
# The Dockerfile's build stage runs exactly this, and tests/unit/test_dockerfile.py runs it the
# same way in a fresh directory, so the image's install steps are tested without a Docker engine.
# Every dependency ships as a wheel: no compiler is needed.
set -eu

src=$1
prefix=$2

python3 -m venv "$prefix"
"$prefix/bin/python" -m pip install --no-cache-dir --disable-pip-version-check --no-compile "$src"
# The image runs with a read-only root filesystem and PYTHONDONTWRITEBYTECODE=1: compile now.
"$prefix/bin/python" -m compileall -q "$prefix/lib"
# Nothing installs packages at run time.
"$prefix/bin/python" -m pip uninstall -y -q --disable-pip-version-check pip
