"""``python -m scmspec``: the same command line as the ``scmspec`` script."""

from scmspec.cli import main

if __name__ == "__main__":
    main()
