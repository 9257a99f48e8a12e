"""``python -m gdp``: the ``gdp`` command (see :mod:`gdp.cli`)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
