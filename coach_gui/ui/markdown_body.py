"""A note's Markdown body: write it, or read it formatted (rendered only when shown)."""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextBrowser, QWidget


class MarkdownBody(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QPlainTextEdit(self)
        self.edit.setPlaceholderText("Write the note in Markdown…")
        self.edit.setAccessibleName("Note text (Markdown)")
        self.edit.setAccessibleDescription("The body of the note, written in Markdown")
        self.edit.setTabChangesFocus(True)  # Tab moves on; the body is prose, not code
        self.preview = QTextBrowser(self)
        self.preview.setOpenExternalLinks(True)
        self.preview.setAccessibleName("Preview")
        self.preview.setAccessibleDescription("The note text as it reads once formatted")
        self.addTab(self.edit, "&Write")
        self.addTab(self.preview, "&Preview")
        self.setAccessibleName("Note text")
        self.currentChanged.connect(self.render_if_shown)

    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.preview.clear()
        self.render_if_shown()

    def render_if_shown(self, *_args: object) -> None:
        if self.currentWidget() is self.preview:
            self.preview.setMarkdown(self.edit.toPlainText())
