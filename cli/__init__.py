"""The ``fudasim`` command line: click commands, each a thin layer over simcore and analysis."""
