"""The Gemini API key in the OS keyring, and checking that it works — for the Settings
dialog, the welcome dialog and `coach key` alike. The key is never shown or logged."""

from __future__ import annotations

from coach_gui.domain.connections import ConnectionCheck, KeyStatus
from coach_gui.operations.app import App


def key_status(app: App) -> KeyStatus:
    return app.key_store().status()


def store_key(app: App, key: str) -> None:
    """Store `key` in the OS keyring (EmptyKey, KeyringUnavailable)."""
    app.key_store().set(key)


def clear_key(app: App) -> bool:
    """Remove the key; False when none was stored."""
    return app.key_store().clear()


def check_connection(app: App) -> ConnectionCheck:
    """Check the Gemini key and model with a request that sends no learner data; raises
    the same JudgeErrors as judging does (whichever judge grades now: it is the key that
    is tested)."""
    judge = app.judge(enabled=True, provider="gemini")
    try:
        return judge.test_connection()
    finally:
        judge.close()
