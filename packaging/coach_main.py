"""The bundle's entry point: the same `coach` command the source install runs."""

import multiprocessing
import sys

if __name__ == "__main__":
    # A first sync reads segments in a helper process (services.sync): in the bundle that
    # process is this program again, started with the arguments this call recognises.
    multiprocessing.freeze_support()
    from coach_gui.cli import main

    sys.exit(main())
