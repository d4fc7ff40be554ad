"""The notes: the list and its search (`note_list`), the editor, the listing of the notes
folder and its watcher (`notes_listing`), choosing another folder, deleted notes and undo.
Takes changes by listing the folder again (`NOTES_LISTED` goes out from here)."""
