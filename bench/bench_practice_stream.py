"""GUI responsiveness while challenges stream into the real PracticePane at 200 tokens/s.

Run: QT_QPA_PLATFORM=offscreen python bench/bench_practice_stream.py [--challenges 8]
     [--tokens-per-second 200]

Prints (targets from issue 3; nothing is asserted):
- GUI-thread lateness of a 10 ms QTimer probe (QElapsedTimer): max <= 50 ms, p99 <= 20 ms;
- token to screen: from a token leaving the fake Ollama's socket (its send time) to the
  first paint of the challenge view that shows the text the token released, p50/p95
  (target p95 <= 30 ms). Released text lags the model by design (ADR-0004): the figure
  starts at the token that releases the words, not at the words' own tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, _tokens
from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

# Questions that share no phrase with the sample note (so nothing is withdrawn), ~450 chars.
QUESTION = (
    "Picture a remote island {n} where a storm has just carried a handful of finches from the "
    "mainland. Over the next ten thousand years the seeds on the island grow harder and "
    "larger, while the insects become scarce during long droughts. Describe, step by step, "
    "how the beaks of these birds could come to differ from those of their mainland "
    "cousins, what would have to be true of the parents and their chicks for that to "
    "happen, and what evidence you would look for to test your account."
)


class PaintClock(QObject):
    """Records (time, characters shown) at each paint of the challenge view."""

    def __init__(self, view: object) -> None:
        super().__init__()
        self.view = view
        self.paints: list[tuple[float, int]] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints.append((time.perf_counter(), len(self.view.toPlainText())))  # type: ignore[attr-defined]
        return False


def release_lengths(content: str, note: object, settings: object) -> list[int | None]:
    """For each token of `content`, the length of the shown text it released (None if none),
    replaying the same safe-release rule the service applies."""
    from coach_gui.domain.challenge_stream import ChallengeStream
    from coach_gui.domain.no_quote import NoQuoteCheck

    check = NoQuoteCheck.for_note(
        note,  # type: ignore[arg-type]
        max_shared_words=settings.max_shared_words,  # type: ignore[attr-defined]
        max_containment=settings.max_containment,  # type: ignore[attr-defined]
        shingle_words=settings.shingle_words,  # type: ignore[attr-defined]
    )
    stream = ChallengeStream(check)
    return [len(stream.shown) if stream.feed(token) else None for token in _tokens(content)]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--challenges", type=int, default=8)
    parser.add_argument("--tokens-per-second", type=float, default=200.0)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="coach-bench-"))
    os.environ["COACH_HOME"] = str(root / "home")
    os.environ["COACH_CONFIG"] = str(root / "coach.config.json")
    app = QApplication([])

    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.ui.practice.practice_pane import Phase, PracticePane

    sent: list[float] = []
    contents = [
        json.dumps({"challenge": QUESTION.format(n=i + 1), "kind": "explain"})
        for i in range(args.challenges)
    ]
    with FakeOllama(token_delay=1.0 / args.tokens_per_second, token_sent_at=sent) as ollama:
        for content in contents:
            ollama.queue_reply(content)
        Path(os.environ["COACH_CONFIG"]).write_text(
            json.dumps({"tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL,
                                  "challengesPerSession": args.challenges, "followUps": False},
                        "judge": {"enabled": False}}),
            encoding="utf-8",
        )  # fmt: skip
        context = build_context()
        entry = context.notes.load().find("natural-selection")
        assert entry is not None
        pane = PracticePane(use_cases(context).practice)
        pane.resize(900, 640)
        pane.show()
        paints = PaintClock(pane.view.challenge_view)
        pane.view.challenge_view.viewport().installEventFilter(paints)

        lateness: list[float] = []
        clock = QElapsedTimer()
        probe = QTimer()
        probe.setInterval(10)
        probe.setTimerType(probe.timerType().PreciseTimer)

        def tick() -> None:
            if clock.isValid():
                lateness.append(clock.nsecsElapsed() / 1e6 - 10.0)
            clock.restart()

        probe.timeout.connect(tick)

        def drive() -> None:  # the learner: answer each challenge, then go on
            if pane.phase is Phase.ANSWERING:
                pane.view.answer_box.setPlainText("Harder seeds favour stronger beaks, passed on.")
                pane.submit()
            elif pane.phase is Phase.ANSWERED:
                pane.next()
            elif pane.phase is Phase.FINISHED:
                app.quit()

        driver = QTimer()
        driver.setInterval(50)
        driver.timeout.connect(drive)
        pane.start(entry.note)
        probe.start()
        driver.start()
        app.exec()
        probe.stop()
        driver.stop()
        pane.shutdown()
        settings = context.practice_settings()
        context.close()

    releases: list[tuple[float, int]] = []
    position = 0
    for content in contents:
        for length in release_lengths(content, entry.note, settings):
            if length is not None:
                releases.append((sent[position], length))
            position += 1
    # Done-lines are not tokens; every content token was sent exactly once, in order.
    assert position == len(sent), (position, len(sent))
    delays = []
    for sent_at, length in releases:
        shown = next((t for t, n in paints.paints if t >= sent_at and n >= length), None)
        if shown is not None:
            delays.append((shown - sent_at) * 1000)

    late = [max(v, 0.0) for v in lateness]
    print(f"streamed {len(contents)} challenges, {len(sent)} tokens "
          f"at {args.tokens_per_second:g} tokens/s; {len(paints.paints)} paints")  # fmt: skip
    median = statistics.median(late)
    print(f"GUI lateness (10 ms probe, {len(late)} ticks): max {max(late):.1f} ms, "
          f"p99 {percentile(late, 0.99):.1f} ms, median {median:.1f} ms")  # fmt: skip
    print(f"token to screen ({len(delays)} of {len(releases)} releases painted): "
          f"p50 {percentile(delays, 0.50):.1f} ms, p95 {percentile(delays, 0.95):.1f} ms, "
          f"max {max(delays):.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
