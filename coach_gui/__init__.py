"""Coach: a desktop tutor that grades your answers against your own core assertions."""

__version__ = "0.1.0"
APP_NAME = "Coach"
