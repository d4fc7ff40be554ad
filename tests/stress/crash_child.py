"""The child side of the crash stress (issue 9, item 1): Coach's own code saving notes and
submitting answers, printing one acknowledgement line on stdout after each returns, until
it is killed. Run by `crash_driver`: `python tests/stress/crash_child.py --seed N` with
COACH_HOME and COACH_CONFIG set.

Each version of a note has deterministic content (`note_content`), so the parent can
tell a whole version from a torn mix of two.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from dataclasses import replace
from typing import Any

HEADER = re.compile(r"^crash-test (\S+) v(\d+)\n")
_MAX_CREATED = 12  # new notes per chain
_SESSION_ANSWERS = (1, 5)


def note_content(note_id: str, version: int) -> dict[str, Any]:
    seed = int.from_bytes(hashlib.sha256(f"{note_id}:{version}".encode()).digest()[:4], "big")
    lines = 1 + seed % 300  # up to ~20 KB, so a write takes long enough to be cut
    body = f"crash-test {note_id} v{version}\n\n" + "".join(
        f"Line {i} of version {version}: natural selection works slowly, step by step.\n"
        for i in range(lines)
    )
    assertions = tuple(f"Point {k} of version {version} of this note." for k in range(3))
    return {"body": body, "core_assertions": assertions}


def note_version(body: str) -> int:
    match = HEADER.match(body)
    return int(match[2]) if match else 0


def _ack(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def child_main(seed: int) -> None:
    from coach_gui.adapters.journal.traces import LivePracticeJournal, SqliteTraceJournal
    from coach_gui.bootstrap import SystemClock, build_context
    from coach_gui.domain.notes import Note, new_note_id
    from coach_gui.operations.practice import recover
    from coach_gui.services.practice import PracticeRun
    from coach_gui.services.sealing import seal_session

    rng = random.Random(seed)
    context = build_context()  # seeds the sample notes on the first run, as the app does
    recover(context)  # opens the journal (daily backup) and seals what a crash left open
    store = context.notes
    notes = {entry.note.id: entry.note for entry in store.load().notes}
    created = sum(1 for n in notes.values() if n.title.startswith("Crash note"))
    settings = replace(
        context.practice_settings(judge_enabled=False), challenges=50, follow_ups=False
    )
    journal = LivePracticeJournal(context.journal)
    traces = SqliteTraceJournal(context.journal)
    clock = SystemClock()
    practice: PracticeRun | None = None
    left = 0
    _ack(op="ready")
    for step in range(1_000_000):
        roll = rng.random()
        if roll < 0.05 and created < _MAX_CREATED:
            created += 1
            note_id = new_note_id()
            note = Note(id=note_id, title=f"Crash note {seed}-{step}", **note_content(note_id, 1))
            entry = store.save(note)
            notes[note_id] = entry.note
            _ack(op="save", id=note_id, v=1, file=entry.file_name)
        elif roll < 0.5:
            note = notes[rng.choice(sorted(notes))]
            version = note_version(note.body) + 1
            edited = note.model_copy(update=note_content(note.id, version))
            entry = store.save(edited)
            notes[note.id] = entry.note
            _ack(op="save", id=note.id, v=version, file=entry.file_name)
        else:
            if practice is not None and left == 0:
                session_id = practice.session.id if practice.session else ""
                disposition = practice.finish()
                trace_id = seal_session(session_id, traces, clock, disposition=disposition)
                journal.release(session_id)
                _ack(op="sealed", session=session_id, trace=trace_id)
                practice = None
            if practice is None:
                note = notes[rng.choice(sorted(notes))]
                practice = PracticeRun(note, settings, journal, None, clock)
                practice.start()
                left = rng.randint(*_SESSION_ANSWERS)
            challenge = practice.next_challenge().challenge
            answer = f"Answer {seed}-{step}: each variation is kept because it helps. " * (
                1 + step % 7
            )
            attempt = practice.submit(challenge, answer)
            left -= 1
            _ack(op="answer", session=attempt.session_id, attempt=attempt.id, answer=answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    child_main(parser.parse_args().seed)


if __name__ == "__main__":
    main()
