"""Screenshots of the note preview on a note that uses every Obsidian feature it renders,
light and dark, at 1.0x and 1.5x: `python bench/shots_preview.py [folder]`
(default /tmp/preview-shots). Runs offscreen; each scale is its own process, since
QT_SCALE_FACTOR is read when Qt starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

NOTE = """---
title: Natural selection
tags: [biology]
---
# Natural selection

Darwin's idea, linked to [[Evolution]] and [[Genetics|genes]], with a heading link
[[Evolution#Variation]], a [[Missing note]] and a [Markdown link](Genetics.md).
This is ==highlighted text==, ~~struck~~, *emphasis* and **strong**.
Hidden: %% a private comment %%(an inline comment was here).

%%
A block comment that never shows.
%%

> [!note] Key idea
> Variation + inheritance + selection = **adaptation**.

> [!warning]- Folded by default
> You only see this once unfolded.

> [!tip]+ Open, can fold
> Tip body with `inline code` and a [[Genetics]] link.
> > [!example] Nested
> > An example inside.

> [!question]
> A callout with no title takes its type's name.

> A plain quote, as Obsidian draws one.

- [ ] an open task
- [x] a done task
- a plain item

1. first
2. second

Inline math $E = mc^2$ and a block:

$$
\\frac{dp}{dt} = s\\,p(1-p)
$$

A footnote[^1] and an inline one^[inline footnote text].

| Term | Meaning |
| --- | --- |
| Fitness | Reproductive success |
| [[Genetics\\|Genes]] | Units of heredity |

```python
def fitness(x):
    return x * 2
```

![[finch.png|240]]

![[Evolution#Variation]]

Remote: ![logo](https://example.com/logo.png), <script>alert(1)</script> and
[a web link](https://example.com); missing picture: ![[nowhere.png]].

[^1]: The footnote text.
"""

NOTES = {
    "Evolution": "# Evolution\n\n## Variation\nIndividuals differ, and ![[Evolution]] "
    "stays a link here.\n\n## Other\nNot shown.",
    "Genetics": "Genes.",
}


def shoot(folder: Path, scale: str) -> None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["QT_SCALE_FACTOR"] = scale
    from PySide6.QtCore import QPointF, Qt, QUrl
    from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPalette
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.markdown.markdown_body import MarkdownBody

    app = QApplication([])
    app.setStyle("Fusion")
    vault = Path(tempfile.mkdtemp(prefix="vault-"))
    picture = QImage(480, 300, QImage.Format.Format_RGB32)
    painter = QPainter(picture)
    gradient = QLinearGradient(QPointF(0, 0), QPointF(480, 300))
    gradient.setColorAt(0, QColor("#2e7d32"))
    gradient.setColorAt(1, QColor("#f9a825"))
    painter.fillRect(picture.rect(), gradient)
    painter.setPen(QColor("white"))
    painter.drawText(picture.rect(), Qt.AlignmentFlag.AlignCenter, "finch.png")
    painter.end()
    picture.save(str(vault / "finch.png"))

    def resolve_file(name: str) -> Path | None:
        path = vault / name
        return path if path.is_file() else None

    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        for state in ("", "-unfolded"):
            body = MarkdownBody()
            body.set_vault(
                lambda n: n if n.removesuffix(".md") in NOTES else None,
                resolve_file,
                NOTES.get,
                root=vault,
            )
            body.set_text(NOTE)
            body.resize(720, 900)
            body.setCurrentWidget(body.preview)
            body.show()
            if state:  # as if the reader clicked "show" on the folded callout
                line = next(i for i, t in enumerate(NOTE.split("\n")) if "[!warning]-" in t)
                body.preview.anchorClicked.emit(QUrl(f"coach-fold:{line}"))
            app.processEvents()
            height = int(body.preview.document().size().height()) + 60
            body.resize(720, height)
            app.processEvents()
            out = folder / f"preview-{theme}-{scale}x{state}.png"
            body.grab().save(str(out))
            print(out)
            body.close()


def _palette(dark: bool, QPalette: type, QColor: type) -> object:
    palette = QPalette()
    if dark:
        roles = QPalette.ColorRole
        for role, colour in (
            (roles.Window, "#202020"),
            (roles.Base, "#262626"),
            (roles.AlternateBase, "#2c2c2c"),
            (roles.Text, "#dcdcdc"),
            (roles.WindowText, "#dcdcdc"),
            (roles.Button, "#303030"),
            (roles.ButtonText, "#dcdcdc"),
            (roles.Link, "#7ab4ff"),
            (roles.Highlight, "#2f65ca"),
            (roles.HighlightedText, "#ffffff"),
            (roles.PlaceholderText, "#8f8f8f"),
        ):
            palette.setColor(role, QColor(colour))
        disabled = QPalette.ColorGroup.Disabled
        for role in (roles.Text, roles.WindowText, roles.ButtonText):
            palette.setColor(disabled, role, QColor("#7a7a7a"))  # greyed, as a dark theme has
    return palette


def sandbox(scale: str) -> Path:
    """This process's own Coach home, settings file and file keyring, at `scale` (Qt reads
    QT_SCALE_FACTOR when it starts); offscreen unless QT_QPA_PLATFORM says otherwise, so it
    runs under Xvfb too. Returns the folder (the settings file is `coach.config.json`)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["QT_SCALE_FACTOR"] = scale
    home = Path(tempfile.mkdtemp(prefix="coach-shots-"))
    os.environ["COACH_HOME"] = str(home / "home")
    os.environ["COACH_CONFIG"] = str(home / "coach.config.json")
    os.environ["COACH_TEST_KEYRING"] = str(home / "keys.json")
    os.environ["PYTHON_KEYRING_BACKEND"] = "fakes.keyring_backend.FileKeyring"
    return home


def until(app: object, ready: Callable[[], bool], timeout: float = 15.0) -> None:
    """Turn the event loop until `ready()`; exit with a message after `timeout` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise SystemExit("the window did not get there in time")
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.01)


@contextmanager
def practice_pane(
    challenges: Sequence[str],
    reply_for: Callable[[Any], str],
    *,
    key: str,
    follow_ups: bool,
    size: tuple[int, int],
    kb: Path | None = None,
    note: str = "natural-selection",
) -> Iterator[Any]:
    """A real practice pane and app context (in this process's `sandbox`) against loopback
    fakes of Ollama, writing `challenges`, and Gemini, answering with `reply_for`; started
    on the note `note` (the sample note "Natural selection" unless a `kb` folder is given),
    shown at `size`, shut down at the end."""
    from fakes.gemini_server import FakeGemini
    from fakes.ollama_server import DEFAULT_MODEL, FakeOllama

    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.ui.practice.practice_pane import PracticePane

    with FakeOllama() as ollama, FakeGemini(api_keys={key}) as gemini:
        for text in challenges:
            ollama.queue_challenge(text)
        gemini.reply_for = reply_for
        Path(os.environ["COACH_CONFIG"]).write_text(json.dumps({
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL,
                      "followUps": follow_ups, "challengesPerSession": 1},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
            **({"kb": {"path": str(kb)}} if kb is not None else {}),
        }), encoding="utf-8")  # fmt: skip
        KeyStore().set(key)
        context = build_context()
        entry = context.notes.load().find(note)
        assert entry is not None
        pane = PracticePane(use_cases(context).practice)
        pane.resize(*size)
        pane.show()
        pane.start(entry.note)
        try:
            yield pane
        finally:
            pane.shutdown(5000)
            pane.close()
            context.close()


def at_each_scale(
    script: str,
    shoot: Callable[[Path, str], None],
    default: str,
    scales: tuple[str, ...] = ("1.0", "1.5"),
) -> None:
    """A screenshot script's main: each scale in a process of its own (QT_SCALE_FACTOR is
    read when Qt starts), `script --scale S FOLDER` being one of them; `--scales 1.0,2.0`
    after the folder chooses others."""
    if len(sys.argv) > 2 and sys.argv[1] == "--scale":
        shoot(Path(sys.argv[3]), sys.argv[2])
        return
    args = sys.argv[1:]
    if "--scales" in args:
        at = args.index("--scales")
        scales = tuple(args[at + 1].split(","))
        del args[at : at + 2]
    folder = Path(args[0]) if args else Path(default)
    folder.mkdir(parents=True, exist_ok=True)
    for scale in scales:
        subprocess.run([sys.executable, script, "--scale", scale, str(folder)], check=True)


def main() -> None:
    at_each_scale(__file__, shoot, "/tmp/preview-shots")


if __name__ == "__main__":
    main()
