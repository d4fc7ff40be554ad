import sys

from coach_gui.cli import main

sys.exit(main())
