"""The bundle's entry point: the same `coach` command the source install runs."""

import sys

from coach_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
