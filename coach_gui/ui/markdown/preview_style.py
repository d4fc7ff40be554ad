"""The note preview's colours, light and dark: Obsidian's callout hues over the page colour.

Inline styles rather than a style sheet: QTextBrowser applies them on every element it
supports, and the HTML stays self-contained."""

from __future__ import annotations

from dataclasses import dataclass

# Obsidian's default callout colours, by type and alias.
_HUES = {
    "#086ddd": ("note", "info", "todo"),
    "#00bfbc": ("abstract", "summary", "tldr", "tip", "hint", "important"),
    "#08b94e": ("success", "check", "done"),
    "#ec7500": ("question", "help", "faq", "warning", "caution", "attention"),
    "#e93147": ("failure", "fail", "missing", "danger", "error", "bug"),
    "#7852ee": ("example",),
    "#9e9e9e": ("quote", "cite"),
}
_ACCENT = {kind: hue for hue, kinds in _HUES.items() for kind in kinds}


@dataclass(frozen=True)
class PreviewColours:
    dark: bool
    page: str  # what tints are mixed over: close to the palette's base colour
    code: str
    highlight: str
    quote_bar: str
    border: str
    unresolved: str
    muted: str
    embed_bar: str

    @property
    def highlight_css(self) -> str:
        return f"background-color:{self.highlight};"

    @property
    def code_css(self) -> str:
        return f"background-color:{self.code};"

    @property
    def math_css(self) -> str:
        return f"font-family:monospace; background-color:{self.code};"

    @property
    def unresolved_css(self) -> str:
        return f"color:{self.unresolved};"

    @property
    def muted_css(self) -> str:
        return f"color:{self.muted};"

    @property
    def embed_fill(self) -> str:
        return mix(self.embed_bar, self.page, 0.06)

    @property
    def rule(self) -> str:
        return f'<hr style="background-color:{self.border};" />\n'

    @property
    def code_box(self) -> str:
        return (
            f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{self.code}" '
            'style="margin-top:6px; margin-bottom:6px;"><tr><td>'
        )

    @property
    def table_open(self) -> str:
        return (
            f'<table border="1" cellspacing="0" cellpadding="5" style="border-collapse:collapse; '
            f'border-color:{self.border}; border-style:solid; margin-top:6px; margin-bottom:6px;">'
        )


LIGHT = PreviewColours(
    dark=False,
    page="#ffffff",
    code="#f2f2f2",
    highlight="#fff099",
    quote_bar="#c8c8c8",
    border="#c8c8c8",
    unresolved="#8a95b8",
    muted="#777777",
    embed_bar="#7a86a8",
)
DARK = PreviewColours(
    dark=True,
    page="#262626",
    code="#333333",
    highlight="#6e5c10",
    quote_bar="#5a5a5a",
    border="#555555",
    unresolved="#7f8aa8",
    muted="#9a9a9a",
    embed_bar="#8a96b8",
)


def colours_for(dark: bool) -> PreviewColours:
    return DARK if dark else LIGHT


def callout_accent(kind: str, colours: PreviewColours) -> tuple[str, str]:
    """(accent, tint) for a callout type; an unknown type looks like a note, as in Obsidian."""
    accent = _ACCENT.get(kind, _ACCENT["note"])
    if colours.dark:
        accent = mix("#ffffff", accent, 0.25)  # the same hue, lighter, reads on dark
    return accent, mix(accent, colours.page, 0.12 if colours.dark else 0.09)


def mix(colour: str, under: str, amount: float) -> str:
    """`colour` laid over `under` at `amount` opacity, as #rrggbb."""
    top = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    low = [int(under[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(t * amount + b * (1 - amount)):02x}" for t, b in zip(top, low, strict=True)
    )
