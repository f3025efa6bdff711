"""The command functions both command-line parsers run, and how their failures end.

The console scripts' short way (``plugin.console``) and the click group (``plugin.cli``) parse
a command line each their own way and then call the same function here; neither imports the
other's parser for it. The front ends are imported inside each function, so that a command
loads only its own.

Exit codes: 0 success, 1 invalid input or environment, 2 usage error (click's own), 3 internal
bug: any exception that reaches ``guarded`` prints its traceback on stderr. An OS failure that
reaches it (a full disk, a closed pipe) is the environment's: one line on stderr, exit code 1.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

INTERNAL_ERROR = 3
ENVIRONMENT_ERROR = 1


def guarded(fn: Callable[[], int]) -> int:
    """Run a front end; an OS failure is the environment's (exit 1, one line), anything else a bug.

    stdout is flushed here, not at interpreter exit, so that a full disk or a reader that went
    away (``| head``) is reported like any other failure of the environment. Any other
    exception escaping it is a bug: traceback on stderr, exit code 3.
    """
    _whole_writes()
    try:
        code = fn()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away: nothing more can be delivered, and nothing is left to flush.
        _drop_stdout()
        sys.stderr.write("dynamo-render: the output was closed before it was written in full\n")
        return ENVIRONMENT_ERROR
    except OSError as err:
        _drop_stdout()
        where = f": {err.filename}" if err.filename else ""
        sys.stderr.write(f"dynamo-render: {err.strerror or err}{where}\n")
        return ENVIRONMENT_ERROR
    except Exception:  # noqa: BLE001 - every unexpected exception is a bug report
        import traceback

        traceback.print_exc(file=sys.stderr)
        sys.stderr.write("dynamo-render: internal error (this is a bug; please report it with the input)\n")
        return INTERNAL_ERROR


class _ClosedStdout(io.TextIOBase):
    """stdout when the process started without one (``>&-``): writing to it is the environment's error."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "stdout is closed, so the output cannot be written")


class _WholeWrites(io.RawIOBase):
    """A file descriptor written until every byte is written or the write fails.

    Why: when a reader goes away while a large write waits on a full pipe (``| head -c1``),
    the kernel returns the part already delivered, the buffered writer reports that short count
    and the text layer drops the rest without an error, so a run that lost most of its output
    exits 0. Written in a loop, the next write fails (EPIPE) and the run reports it.
    """

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        while view:
            view = view[os.write(self._fd, view):]
        return len(data) if isinstance(data, bytes) else memoryview(data).nbytes


def _whole_writes() -> None:
    """Give the process a stdout that writes everything or fails (a closed one fails on the first write)."""
    stream = sys.stdout
    if stream is None:
        sys.stdout = _ClosedStdout()
        return
    buffer = getattr(stream, "buffer", None)
    if isinstance(buffer, io.BufferedWriter) and isinstance(buffer.raw, _WholeWrites):
        return
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # not a file (a test's capture): nothing to do
    stream.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_WholeWrites(fd)),
        encoding=stream.encoding, errors=stream.errors, newline=None, line_buffering=bool(stream.line_buffering),
    )


def _drop_stdout() -> None:
    """Point stdout at /dev/null so that the flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def render(paths: Sequence[str], strict_codes: str | None = None, **keywords: Any) -> int:
    """``dynamo-render render``: ``keywords`` are option-table values by keyword (``Option.dest``), as both parsers give them."""
    from plugin.frontends.render import run
    from plugin.options import given_values

    # --strict=CODES (read as --strict-codes) names the codes; --strict alone is true.
    if strict_codes is not None:
        keywords["strict"] = strict_codes
    return run(paths, given_values(keywords), sys.stdout, sys.stderr)


def krm(args: Sequence[str]) -> int:
    """``dynamo-render krm`` (its usage was checked)."""
    from plugin.frontends import krm as krm_frontend

    return krm_frontend.main(args[0] if args else None)


def krm_usage_problem(args: Sequence[str]) -> str:
    """Why ``args`` are not a call the KRM function accepts ("" when they are)."""
    from plugin.frontends import krm as krm_frontend

    return krm_frontend.usage_problem(tuple(args), os.environ)


def cmp_generate() -> int:
    """``dynamo-render cmp generate``."""
    from plugin.frontends import cmp as cmp_frontend

    return cmp_frontend.main()


def cmp_parameters() -> int:
    """``dynamo-render cmp parameters``."""
    from plugin.frontends import cmp as cmp_frontend

    return cmp_frontend.parameters(os.getcwd(), os.environ, sys.stdout)
