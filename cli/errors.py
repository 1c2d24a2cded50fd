"""The command line's one error class, and the decorator that turns library errors into it.

Every user error is one line on stderr, ``fudasim: error: ...``, with exit status 2: a library
error (``simcore.errors.FudasimError``, analysis errors included) or a file-system error, which
names its path.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
from collections.abc import Iterator
from typing import NoReturn

import click

__all__ = ["Terminated", "UserError", "interrupted", "reports_user_errors", "stops_on_sigterm"]


class UserError(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        """Print the one-line error message to standard error (or ``file``)."""
        click.echo(f"fudasim: error: {self.format_message()}", err=True, file=file)


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def reports_user_errors(function):
    """Turn library and file-system errors raised by a command into ``UserError``."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        from simcore.errors import FudasimError

        try:
            return function(*args, **kwargs)
        except FudasimError as error:
            raise UserError(_one_line(error)) from None
        except BrokenPipeError:
            raise  # the reader went away (| head): click's main then ends quietly, as Unix tools do
        except OSError as error:
            where = f"{error.filename}: " if error.filename else ""
            raise UserError(_one_line(f"{where}{error.strerror or error}")) from None

    return wrapper


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``), raised where Ctrl-C raises ``KeyboardInterrupt``."""


@contextlib.contextmanager
def stops_on_sigterm() -> Iterator[None]:
    """While a command writes a dataset, SIGTERM stops it as Ctrl-C does: the shards written so
    far are kept, the lock and manifest are left for ``--resume``, and ``interrupted`` says so."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted(error: KeyboardInterrupt, hint: str) -> NoReturn:
    """Say that Ctrl-C (or SIGTERM) stopped a command and how to go on; exit 130 (or 143)."""
    stopped = "terminated" if isinstance(error, Terminated) else "interrupted"
    click.echo(f"\nfudasim: {stopped}; {hint}", err=True)
    sys.exit(143 if isinstance(error, Terminated) else 130)
