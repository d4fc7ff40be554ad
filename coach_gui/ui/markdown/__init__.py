"""How a note's text is drawn: the Markdown preview with Obsidian's syntax, its links and
embeds, and the evidence marks in an answer. Widgets and HTML only; no feature's state."""
