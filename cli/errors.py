"""The command line's one error class, and the decorator that turns library errors into it.

Every user error is one line on stderr, ``fudasim: error: ...``, with exit status 2: a library
error (``simcore.errors.FudasimError``, analysis errors included) or a file-system error, which
names its path.
"""

from __future__ import annotations

import functools

import click

__all__ = ["UserError", "reports_user_errors"]


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
        except OSError as error:
            where = f"{error.filename}: " if error.filename else ""
            raise UserError(_one_line(f"{where}{error.strerror or error}")) from None

    return wrapper
