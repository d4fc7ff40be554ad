"""Practising a note: `PracticePane` (the view, its controller, the answers on screen),
verdicts and self-ratings, payload reviews, the local model's state and download. The steps
themselves are `operations.practice_steps`; a sealed session goes out as `SESSION_SEALED`."""
