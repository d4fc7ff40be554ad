"""The one error family Coach raises. Every message tells the learner what to do next."""

from __future__ import annotations


class CoachError(Exception):
    """Root of every error Coach raises on purpose.

    `str(error)` is a message for the learner: what happened, and what to do next.
    """

    @property
    def learner_text(self) -> str:
        """What the window shows; the same as `str(error)` but for a ConfigError."""
        return str(self)


class ConfigError(CoachError):
    """The configuration file is unreadable or holds a bad value.

    `key` is the dotted key at fault (e.g. ``judge.timeoutSeconds``), or ``None`` when
    the file as a whole is at fault (missing, not JSON). `str(error)` names the key, for
    the terminal and the log; `learner_text`, for the window, names the setting as
    Settings does (`label`, e.g. "Gemini timeout") and never the key. `learner` replaces
    the whole sentence when the key has no such name (an entry Coach does not know).
    """

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        path: str | None = None,
        label: str | None = None,
        learner: str | None = None,
    ) -> None:
        self.key = key
        self.path = path
        self.label = label
        self._learner = learner
        where = path or "coach.config.json"
        prefix = f"{where}: {key}: " if key else f"{where}: "
        super().__init__(prefix + message)
        self.detail = message

    @property
    def learner_text(self) -> str:
        if self._learner is not None:
            return self._learner
        if self.key is not None:
            return f"{self.label or 'A setting'}: {self.detail}"
        where = f"The settings file {self.path}" if self.path else "Coach's settings"
        return f"{where}: {self.detail}"


class NoteError(CoachError):
    """A note cannot be read, parsed or saved."""


class NoteNotFound(NoteError):
    """No note has the id or file name asked for."""


class NoteConflict(NoteError):
    """The file changed on disk after Coach read it; saving would overwrite that change."""


class JournalError(CoachError):
    """The journal database cannot be opened, migrated or written."""
