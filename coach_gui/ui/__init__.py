"""PySide6 only: windows, panes, dialogs and the background task helper."""
