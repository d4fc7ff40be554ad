"""The one error family Coach raises. Every message tells the learner what to do next."""

from __future__ import annotations


class CoachError(Exception):
    """Root of every error Coach raises on purpose.

    `str(error)` is a message for the learner: what happened, and what to do next.
    """


class ConfigError(CoachError):
    """The configuration file is unreadable or holds a bad value.

    `key` is the dotted key at fault (e.g. ``judge.timeoutSeconds``), or ``None`` when
    the file as a whole is at fault (missing, not JSON).
    """

    def __init__(self, message: str, *, key: str | None = None, path: str | None = None) -> None:
        self.key = key
        self.path = path
        where = path or "coach.config.json"
        prefix = f"{where}: {key}: " if key else f"{where}: "
        super().__init__(prefix + message)
        self.detail = message


class NoteError(CoachError):
    """A note cannot be read, parsed or saved."""


class NoteNotFound(NoteError):
    """No note has the id or file name asked for."""


class NoteConflict(NoteError):
    """The file changed on disk after Coach read it; saving would overwrite that change."""


class JournalError(CoachError):
    """The journal database cannot be opened, migrated or written."""
