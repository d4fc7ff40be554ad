"""Anki in and out (issue 37, DESIGN §3): File › Import… (a preview, then the import with
progress and Cancel) and File › Export… (an Anki package or a CSV file)."""
