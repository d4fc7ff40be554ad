"""The preview's own link schemes (ADR 0017), apart from the renderer so the editor can
follow a link without importing markdown-it (it loads when a preview is first shown)."""

from __future__ import annotations

from urllib.parse import unquote

NOTE_SCHEME = "coach-note"
FOLD_SCHEME = "coach-fold"


def note_link_target(href: str) -> str | None:
    """The note a `coach-note:` link names (its heading dropped), or None for other links."""
    if not href.startswith(NOTE_SCHEME + ":"):
        return None
    return unquote(href[len(NOTE_SCHEME) + 1 :].split("#", 1)[0])
