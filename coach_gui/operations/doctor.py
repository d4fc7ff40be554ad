"""`coach doctor`'s checks, once the config has been read: the notes, the journal, the
local model server and its models, the judge's address, proxies in the environment and
the keyring. The terminal prints them; nothing here changes anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from coach_gui.config import Config
from coach_gui.domain.connections import KeyStatus
from coach_gui.domain.errors import CoachError
from coach_gui.services.doctor import Check as Check  # re-exported for the terminal
from coach_gui.services.doctor import (
    check_environment_proxy,
    check_journal,
    check_judge_endpoint,
    check_keyring,
    check_local_judge,
    check_notes,
    check_ollama,
    check_structured_output,
)
from coach_gui.services.ports.judge import KeyVault
from coach_gui.services.ports.notes import NoteStore


class Examined(Protocol):
    """What the doctor looks at: the app as `bootstrap` built it."""

    @property
    def config(self) -> Config: ...

    @property
    def notes(self) -> NoteStore: ...

    @property
    def journal(self) -> Any: ...  # opened (and migrated) when first asked

    @property
    def journal_path(self) -> Path: ...

    def ollama_client(self) -> Any: ...  # a context manager: the local model server

    def key_store(self) -> KeyVault: ...


def _served(ollama: object, model: str) -> bool:
    try:
        return bool(ollama.has_model(model))  # type: ignore[attr-defined]
    except CoachError:
        return False


def local_server_key_check(status: KeyStatus) -> Check:
    if not status.usable:
        return Check("local server key", True, f"{status.detail} ({status.backend})", warn=True)
    if status.has_key:
        return Check("local server key", True, "a key is set (never shown); sent to it only")
    return Check("local server key", True,
                 "none set (only a server that asks for one, like Jan, needs it: "
                 "`coach key set --local-server`)")  # fmt: skip


def examine(
    app: Examined, environ: Mapping[str, str], local_server_key: Callable[[], KeyStatus]
) -> list[Check]:
    """Every check after the config's own, in the order `coach doctor` prints them."""
    checks = [check_notes(app.notes)]
    checks.append(check_journal(lambda: app.journal, str(app.journal_path)))
    judge = app.config.judge
    tier1 = app.config.tier1
    with app.ollama_client() as ollama:
        found = check_ollama(ollama, tier1.url, tier1.model, tier1.server)
        checks.extend(found)
        if judge.local:
            checks.append(check_local_judge(ollama, judge.local_model, enabled=judge.enabled,
                                            server=tier1.server, url=tier1.url))  # fmt: skip
        negotiate = getattr(ollama, "dialect", None)
        served = [m for m, on in ((tier1.model, True), (judge.local_model, judge.local)) if on]
        served = [m for m in served if _served(ollama, m)]
        if negotiate is not None and found[0].level == "ok" and served:
            checks.append(check_structured_output(negotiate, tier1.url, served))
    if tier1.server == "openai":
        checks.append(local_server_key_check(local_server_key()))
    if not judge.local:
        checks.append(check_judge_endpoint(judge.enabled, judge.base_url))
    proxy = check_environment_proxy(environ)
    if proxy is not None:
        checks.append(proxy)
    key = app.key_store().status()
    checks.extend(
        check_keyring(key.backend, key.usable, key.has_key, key.detail,
                      judge_enabled=judge.enabled and not judge.local)
    )  # fmt: skip
    return checks
