"""`coach doctor`: one check per thing Coach depends on, each with a detail a person can act on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from coach_gui.domain.errors import CoachError
from coach_gui.services.ports.notes import NoteStore
from coach_gui.services.ports.practice import JournalHealth, Tier1Health


@dataclass(frozen=True)
class Check:
    """One finding. A warning (`warn`) is ok — Coach works — but worth fixing."""

    name: str
    ok: bool
    detail: str
    warn: bool = False
    items: tuple[dict[str, str], ...] = ()  # every finding, for --json (the detail sums up)

    @property
    def level(self) -> str:
        return "fail" if not self.ok else "warn" if self.warn else "ok"

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "name": self.name,
            "ok": self.ok,
            "level": self.level,
            "detail": self.detail,
        }
        if self.items:
            found["items"] = list(self.items)
        return found


_SHOWN_UNREADABLE = 3


def check_notes(store: NoteStore) -> Check:
    try:
        snapshot = store.load()
    except CoachError as exc:
        return Check("knowledge base", False, str(exc))
    notes = len(snapshot.notes)
    assertions = sum(len(e.note.core_assertions) for e in snapshot.notes)
    detail = f"{notes} notes, {assertions} core assertions in {snapshot.location}"
    if snapshot.broken:  # Coach works; these files are listed, never overwritten
        count = len(snapshot.broken)
        shown = "; ".join(f"{b.file_name}: {b.error}" for b in snapshot.broken[:_SHOWN_UNREADABLE])
        more = f"; and {count - _SHOWN_UNREADABLE} more" if count > _SHOWN_UNREADABLE else ""
        return Check(
            "knowledge base",
            True,
            f"{detail}; {count} file{'s' if count != 1 else ''} could not be read — "
            f"{shown}{more} (`coach doctor --json` lists them all)",
            warn=True,
            items=tuple({"file": b.file_name, "reason": b.error} for b in snapshot.broken),
        )
    return Check("knowledge base", True, detail)


def check_journal(open_journal: Callable[[], JournalHealth], location: str) -> Check:
    try:
        journal = open_journal()
        problems = journal.integrity_check()
        counts = journal.counts()
    except CoachError as exc:
        return Check("journal", False, str(exc))
    if problems:
        return Check(
            "journal",
            False,
            f"{location} failed its integrity check ({problems[0]}); restore a backup",
        )
    sessions = counts.get("sessions", 0)
    attempts = counts.get("attempts", 0)
    return Check(
        "journal",
        True,
        f"{location} (schema v{journal.schema_version}, {sessions} sessions, "
        f"{attempts} answers; integrity ok)",
    )


def check_ollama(ollama: Tier1Health, url: str, model: str) -> list[Check]:
    """Ollama reachable, its version, the configured model installed. Practice works
    without them (built-in challenges), so these are warnings, never failures."""
    try:
        version = ollama.version()
    except CoachError as exc:
        return [Check("ollama", True, f"{exc}", warn=True)]
    checks = [Check("ollama", True, f"Ollama {version} at {url}")]
    try:
        present = ollama.has_model(model)
    except CoachError as exc:
        return [*checks, Check("tier1 model", True, str(exc), warn=True)]
    if present:
        checks.append(Check("tier1 model", True, f"{model} is installed"))
    else:
        checks.append(
            Check(
                "tier1 model",
                True,
                f"{model} is not installed: run `ollama pull {model}` (until then practice "
                "uses built-in challenges)",
                warn=True,
            )
        )
    return checks


def check_keyring(
    backend: str, usable: bool, has_key: bool, detail: str, *, judge_enabled: bool
) -> list[Check]:
    """The keyring backend and whether the judge's key is in it (never the key). Coach
    works without either — practice offline — so a problem is a warning, never a failure."""
    if not usable:
        return [Check("keyring", True, f"{detail} ({backend})", warn=True)]
    checks = [Check("keyring", True, f"{backend}")]
    if has_key:
        checks.append(Check("judge key", True, "a key is set (never shown)"))
    else:
        why = "the judge is on but cannot be used: " if judge_enabled else ""
        checks.append(Check("judge key", True, f"{why}no key is set; run `coach key set`",
                            warn=judge_enabled))  # fmt: skip
    return checks


def check_local_judge(ollama: Tier1Health, model: str, *, enabled: bool) -> Check:
    """The judge on this computer (`judge.provider: local`): its model installed in Ollama."""
    try:
        present = ollama.has_model(model)
    except CoachError as exc:
        return Check("judge model", True, f"the judge runs on this computer: {exc}", warn=enabled)
    if present:
        return Check("judge model", True, f"{model} grades on this computer; nothing leaves")
    return Check(
        "judge model",
        True,
        f"{model} is not installed: run `ollama pull {model}` (until then answers are kept "
        "unjudged)",
        warn=enabled,
    )


PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")


def check_environment_proxy(environ: Mapping[str, str]) -> Check | None:
    """A proxy named in the environment is never used (README): said plainly, so a learner
    behind one knows why the judge is reached directly (or not at all). None: none set."""
    named = [n for n in PROXY_VARIABLES if environ.get(n) or environ.get(n.lower())]
    if not named:
        return None
    return Check(
        "proxy",
        True,
        f"{' and '.join(named)} set, but not used: Coach talks to the judge and to Ollama "
        "directly, so your key and answers never pass through a proxy",
        warn=True,
    )


def check_judge_endpoint(enabled: bool, base_url: str | None) -> Check:
    """Where the judge sends requests; a non-default endpoint is said plainly (a config
    could name any server), and warned about while the judge is on."""
    if base_url is None:
        return Check("judge endpoint", True, "Google Gemini (the default)")
    state = "judge on: answers go there" if enabled else "judge off: nothing is sent"
    return Check("judge endpoint", True, f"not the default: {base_url} ({state})", warn=enabled)
