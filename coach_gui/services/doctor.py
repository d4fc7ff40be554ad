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


def _get_model(server: str, model: str, url: str) -> str:
    """What to do when `model` is missing, in the server's own terms."""
    if server == "openai":
        return (
            f"the model server at {url} has no model '{model}' loaded: load it there (LM "
            "Studio: the Developer tab) or choose one of its models in Settings"
        )
    return f"{model} is not installed: run `ollama pull {model}`"


def check_ollama(ollama: Tier1Health, url: str, model: str, server: str = "ollama") -> list[Check]:
    """The local model server reachable, what it is, the configured model there. Practice
    works without them (built-in challenges), so these are warnings, never failures."""
    try:
        version = ollama.version()
    except CoachError as exc:
        return [Check("ollama", True, f"{exc}", warn=True)]
    what = f"Ollama {version}" if server == "ollama" else f"an {version} model server"
    checks = [Check("ollama", True, f"{what} at {url}")]
    try:
        present = ollama.has_model(model)
    except CoachError as exc:
        return [*checks, Check("tier1 model", True, str(exc), warn=True)]
    if present:
        there = "is installed" if server == "ollama" else "is served there"
        checks.append(Check("tier1 model", True, f"{model} {there}"))
    else:
        checks.append(
            Check(
                "tier1 model",
                True,
                f"{_get_model(server, model, url)} (until then practice uses built-in challenges)",
                warn=True,
            )
        )
    return checks


# How each structured-output level of an OpenAI-compatible server reads (issue 31).
STRUCTURED_OUTPUT_LEVELS = {
    "json_schema": "a strict JSON schema (the best: replies cannot leave the schema)",
    "json_object_schema": "JSON mode with a schema (llama.cpp's way)",
    "json_object": "JSON mode, the schema said in the prompt",
    "prompt": "the schema said in the prompt only (replies are checked; more are refused)",
}


def check_structured_output(negotiate: Callable[[str], str], url: str, models: list[str]) -> Check:
    """The structured-output level each model of an OpenAI-compatible server takes, found
    by a probe with no learner data (or remembered). Coach works at every level, so a
    lower one is a warning."""
    found: list[dict[str, str]] = []
    for model in dict.fromkeys(models):
        try:
            level = negotiate(model)
        except CoachError as exc:
            return Check("structured output", True, f"not checked: {exc}", warn=True)
        found.append({"server": url, "model": model, "level": level})
    detail = "; ".join(
        f"{f['model']} at {url}: {STRUCTURED_OUTPUT_LEVELS.get(f['level'], f['level'])}"
        for f in found
    )
    weak = any(f["level"] in ("json_object", "prompt") for f in found)
    return Check("structured output", True, detail, warn=weak, items=tuple(found))


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


def check_local_judge(
    ollama: Tier1Health, model: str, *, enabled: bool, server: str = "ollama", url: str = ""
) -> Check:
    """The judge on this computer (`judge.provider: local`): its model on the local server."""
    try:
        present = ollama.has_model(model)
    except CoachError as exc:
        return Check("judge model", True, f"the judge runs on this computer: {exc}", warn=enabled)
    if present:
        return Check("judge model", True, f"{model} grades on this computer; nothing leaves")
    return Check(
        "judge model",
        True,
        f"{_get_model(server, model, url)} (until then answers are kept unjudged)",
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
