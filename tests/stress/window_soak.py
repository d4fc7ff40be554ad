"""A long evening in the real main window (issue 13), for the suite (small) and the bench
(full size: bench/soak_window.py).

The window runs offscreen against a fake Ollama that answers at once (a share of its
replies quote the note, so challenges are withdrawn and written again) and a fake Gemini
that injects random faults (429, 500, a reply past the timeout, prose, a broken schema).
The driver switches notes with the keyboard, practises sessions to the end, flips both
privacy switches at random moments, and finishes or quits (closes the window and opens a
new one, as a restart) at random moments, with work in flight or not.

Every step has a deadline. A step that does not finish in time dumps every thread's
stack and counts as a hang; should the GUI thread itself block (so no deadline can be
checked), `faulthandler` dumps the stacks and ends the process. Afterwards: every answer
the window confirmed as saved is in the journal, `coach verify` passes, no worker is
left running, and the reference counts of None and True did not fall.

The caller provides COACH_HOME / COACH_CONFIG (and a test keyring) in the environment.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import io
import json
import random
import re
import resource
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from fakes.coach_files import write_config
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from fakes.gemini_server import Fault as JudgeFault
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from fakes.ollama_server import RecordedRequest as OllamaRequest
from PySide6.QtCore import QEvent, QEventLoop, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from stress.gc_threads import collections_by_thread

KEY = "soak-key"
_NOTE_FENCE = re.compile(r"<untrusted_note_[0-9a-f]+>\n(.*?)\n</untrusted_note_", re.DOTALL)
_JUDGE_FAULTS = (JudgeFault.QUOTA, JudgeFault.SERVER_ERROR, JudgeFault.SLOW,
                 JudgeFault.NOT_JSON_TEXT, JudgeFault.SCHEMA_VIOLATION)  # fmt: skip
_QUESTIONS = (
    "Why would a small advantage matter over a very long time?",
    "How could you tell whether a trait is inherited rather than learned?",
    "What would you expect to see if the change were sudden instead of gradual?",
    "Which everyday case shows the same process at work, and why?",
)


# How far None's or True's count may fall over a soak before it counts as a leaking binding:
# one that drops references falls by one per void call or emit, tens of thousands here;
# objects of the process freed meanwhile move the counts by a few hundred at most.
REFCOUNT_FALL_TOLERANCE = 2_000


class SoakHang(AssertionError):
    """A step did not finish within its deadline (the stacks were dumped to stderr)."""


@dataclass(frozen=True)
class SoakConfig:
    switches: int = 2_000  # note switches in all, spread between the sessions
    sessions: int = 30
    seed: int = 13
    step_deadline: float = 20.0  # seconds any one step may take
    quote_rate: float = 0.3  # share of Tier 1 replies that quote the note
    fault_rate: float = 0.3  # share of judge requests that fail
    flip_rate: float = 0.15  # chance, at each step in a session, that a switch flips
    finish_rate: float = 0.25  # chance, after an answer, that the session is finished
    quit_rate: float = 0.03  # chance, at each step in a session, of quitting (a restart)


@dataclass
class SoakReport:
    steps: int = 0
    switches: int = 0
    sessions_started: int = 0
    sessions_finished: int = 0
    quits: int = 0
    flips: int = 0
    answers_confirmed: int = 0
    answers_in_journal: int = 0
    answers_lost: list[str] = field(default_factory=list)
    chat_requests: int = 0
    judge_requests: int = 0
    hangs: int = 0
    verify_ok: bool = False
    verify_checked: int = 0
    left_running: list[str] = field(default_factory=list)
    none_delta: int = 0
    true_delta: int = 0
    collections_on_gui: int = 0  # cyclic garbage collections run on the GUI thread
    collections_elsewhere: int = 0  # ... and on any other thread (a widget freed there crashes)
    wall_seconds: float = 0.0
    peak_rss_mib: float = 0.0

    def lines(self) -> list[str]:
        return [
            f"steps {self.steps:,} ({self.switches:,} note switches, {self.sessions_started} "
            f"sessions started, {self.sessions_finished} finished, {self.quits} quits, "
            f"{self.flips} switch flips)",
            f"requests: {self.chat_requests:,} to Ollama, {self.judge_requests:,} to the judge",
            f"wall time {self.wall_seconds:.1f} s, peak memory {self.peak_rss_mib:.0f} MiB",
            f"hangs {self.hangs}, crashes 0 (this line was printed), answers confirmed "
            f"{self.answers_confirmed}, in the journal {self.answers_in_journal}, lost "
            f"{len(self.answers_lost)}",
            f"coach verify: {'ok' if self.verify_ok else 'FAILED'} ({self.verify_checked} "
            f"records); left running: {self.left_running or 'nothing'}",
            f"None moved {self.none_delta:+,}, True moved {self.true_delta:+,}",
            f"garbage collections: {self.collections_on_gui:,} on the GUI thread, "
            f"{self.collections_elsewhere:,} on other threads",
        ]


def _quote_or_question(rng: random.Random, quote_rate: float) -> Callable[[OllamaRequest], str]:
    def reply(request: OllamaRequest) -> str:
        messages = request.body.get("messages", []) if isinstance(request.body, dict) else []
        user = next((m["content"] for m in messages if m.get("role") == "user"), "")
        found = _NOTE_FENCE.search(user)
        words = found.group(1).split() if found else []
        if len(words) >= 14 and rng.random() < quote_rate:
            start = rng.randrange(0, len(words) - 12)
            text = " ".join(words[start : start + 12]) + "?"  # a quote: to be withdrawn
        else:
            text = f"{rng.choice(_QUESTIONS)} ({rng.randrange(10_000)})"
        return json.dumps({"challenge": text, "kind": "explain"})

    return reply


def _verdict(rng: random.Random) -> Callable[[RecordedRequest], str]:
    def reply(request: RecordedRequest) -> str:
        items = []
        for item in prompt_items(request):
            passed = rng.random() < 0.5
            gaps = []
            if not passed:
                assertion = 0 if item.assertions else None
                gaps = [{"assertion": assertion, "problem": "unexplained",
                         "explanation": "Say why the change is slow."}]  # fmt: skip
            items.append({"index": item.index, "verdict": "pass" if passed else "fail",
                          "gaps": gaps, "feedback": "Keep going."})  # fmt: skip
        return assessed_reply(request, json.dumps({"items": items}))

    return reply


def _write_config(ollama: FakeOllama, gemini: FakeGemini) -> None:
    write_config({
        "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": True,
                  "challengesPerSession": 3, "maxRegenerations": 2},
        "judge": {"enabled": True, "includeAssertions": True, "baseUrl": gemini.url,
                  "maxRetries": 0, "timeoutSeconds": 1},
    })  # fmt: skip


class _Driver:
    def __init__(self, config: SoakConfig, report: SoakReport) -> None:
        self.config = config
        self.report = report
        self.rng = random.Random(config.seed)
        self.app = QApplication.instance() or QApplication([])
        self.window = self._open()
        self.confirmed: list[str] = []
        self.counter = 0

    # --- time ---------------------------------------------------------------------------------
    def wait(self, done: Callable[[], bool], what: str) -> None:
        """Turn the event loop until `done()`, at most one step's deadline."""
        self.report.steps += 1
        deadline = time.monotonic() + self.config.step_deadline
        # Should the GUI thread block inside a call, this is what ends the process.
        faulthandler.dump_traceback_later(self.config.step_deadline + 10, exit=True)
        try:
            while not done():
                if time.monotonic() > deadline:
                    self.report.hangs += 1
                    print(f"soak: hang: {what}; every thread's stack:", file=sys.stderr)
                    faulthandler.dump_traceback(all_threads=True)
                    raise SoakHang(f"{what} took more than {self.config.step_deadline} s")
                self.app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
                time.sleep(0.001)
        finally:
            faulthandler.cancel_dump_traceback_later()

    def settle(self) -> None:
        self.wait(lambda: True, "a turn of the event loop")

    # --- the window ---------------------------------------------------------------------------
    def _open(self):  # type: ignore[no-untyped-def]
        from coach_gui.bootstrap import build_cases
        from coach_gui.ui.shell.main_window import MainWindow

        window = MainWindow(build_cases())
        listed: list[bool] = []
        window.notes_listed.connect(lambda: listed.append(True))
        window.resize(1100, 760)
        window.show()
        self.window = window
        self.wait(lambda: bool(listed), "the window lists the notes")
        return window

    def quit_and_reopen(self) -> None:
        """Close the window as the learner does (work may be in flight), open a new one."""
        from coach_gui.ui.kit import tasks

        self.report.quits += 1
        old = self.window
        old.close()
        assert not old.isVisible(), "the window refused to close"
        tasks.quiesce(250)  # what `coach` does after its event loop ends
        old.deleteLater()
        self.settle()
        self.window = self._open()

    def key(self, widget, key: Qt.Key) -> None:  # type: ignore[no-untyped-def]
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            self.app.sendEvent(widget, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier))

    def switch_notes(self, count: int) -> None:
        view = self.window.note_list.view
        view.setFocus()
        keys = (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_End, Qt.Key.Key_Home,
                Qt.Key.Key_PageDown)  # fmt: skip
        for _ in range(count):
            before = self.window.editor.title_edit.text()
            self.key(view, self.rng.choice(keys))
            self.report.switches += 1
            self.wait(lambda: not self.window.editor.is_saving(), "a note opens")
            if self.window.editor.title_edit.text() == before:
                continue  # already at that end of the list

    def flip(self) -> None:
        privacy = self.window.privacy
        action = self.rng.choice(privacy.actions())
        if action.isEnabled():
            action.trigger()
            self.report.flips += 1

    # --- a session ------------------------------------------------------------------------
    def practise(self) -> None:
        from coach_gui.ui.practice.practice_view import Phase

        window = self.window
        window.views.show_notes()
        window.menu_actions.practise.trigger()
        self.report.sessions_started += 1
        settled = (Phase.ANSWERING, Phase.ANSWERED, Phase.CANCELLED, Phase.FINISHED, Phase.IDLE)
        for _turn in range(16):
            pane = self.window.practice
            self.wait(lambda: pane.phase in settled, "a challenge is written")  # noqa: B023
            if self.rng.random() < self.config.flip_rate:
                self.flip()
            if self.rng.random() < self.config.quit_rate:
                self.quit_and_reopen()
                return
            phase = pane.phase
            if phase in (Phase.FINISHED, Phase.IDLE):
                self.report.sessions_finished += phase is Phase.FINISHED
                return
            if phase is Phase.CANCELLED:
                pane.view.builtin_button.click()
            elif phase is Phase.ANSWERING:
                self.answer(pane)
            elif phase is Phase.ANSWERED:
                if self.rng.random() < self.config.finish_rate:
                    pane.view.finish_button.click()
                    self.wait(lambda: pane.phase is Phase.FINISHED, "the summary shows")  # noqa: B023
                    self.report.sessions_finished += 1
                    return
                pane.view.next_button.click()
        pane = self.window.practice
        if pane.active:
            pane.view.finish_button.click()

    def answer(self, pane) -> None:  # type: ignore[no-untyped-def]
        from coach_gui.ui.practice.practice_view import Phase

        self.counter += 1
        text = (
            f"soak answer {self.counter}: kept differences add up slowly, generation on generation"
        )
        pane.view.answer_box.setPlainText(text)
        self.app.sendEvent(
            pane.view.answer_box,
            QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier),
        )
        self.wait(lambda: pane.phase is not Phase.BUSY, "the answer is saved")
        turn = pane.view.turn  # a saved answer moves into the thread, under its challenge
        saved = turn is not None and turn.status.text().startswith("✓ Saved")
        if saved and turn is not None and turn.answer_text == text:
            self.confirmed.append(text)
        if self.rng.random() < self.config.quit_rate:
            self.quit_and_reopen()  # often with the judge call or a follow-up in flight
            return
        self.wait(lambda: pane.phase is not Phase.JUDGING, "the answer is judged")


def run_soak(config: SoakConfig) -> SoakReport:
    """Run the evening; the report says what happened (it raises SoakHang on a hang)."""
    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.bootstrap import build_context
    from coach_gui.operations.practice import recover
    from coach_gui.ui.kit import tasks

    report = SoakReport()
    started = time.monotonic()
    rng = random.Random(config.seed + 1)
    KeyStore().set(KEY)
    with (
        collections_by_thread() as collections,
        FakeOllama() as ollama,
        FakeGemini(api_keys={KEY}, slow_seconds=1.3) as gemini,
    ):
        ollama.reply_for = _quote_or_question(rng, config.quote_rate)
        gemini.reply_for = _verdict(rng)
        _write_config(ollama, gemini)
        gc.collect()  # garbage of whatever ran before (other tests) must not move the counts
        none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
        driver = _Driver(config, report)
        per_session = max(config.switches // max(config.sessions, 1), 1)
        for _ in range(config.sessions):
            if rng.random() < config.fault_rate:
                gemini.inject(rng.choice(_JUDGE_FAULTS), times=rng.randint(1, 3))
            driver.switch_notes(per_session)
            driver.practise()
        left = config.switches - report.switches
        if left > 0:
            driver.switch_notes(left)
        driver.window.close()
        driver.settle()
        idle = tasks.quiesce(15_000)
        with contextlib.suppress(SoakHang):  # reported below, as what was left running
            driver.wait(lambda: not tasks.pending_tasks(), "the last results are delivered")
        gc.collect()
        report.none_delta = sys.getrefcount(None) - none_before
        report.true_delta = sys.getrefcount(True) - true_before
        report.left_running = [] if idle else ["a worker still busy 15 s after the end"]
        report.left_running += tasks.pending_tasks()
        report.chat_requests = len(ollama.requests_to("/api/chat"))
        report.judge_requests = len(gemini.generate_requests)
    report.collections_on_gui = collections["gui"]
    report.collections_elsewhere = collections["elsewhere"]
    report.answers_confirmed = len(driver.confirmed)
    context = build_context()
    recover(context)  # what the next start does with sessions a quit left open
    with sqlite3.connect(context.journal_path) as conn:
        stored = {row[0] for row in conn.execute("SELECT answer FROM attempts")}
    context.close()
    report.answers_in_journal = len(stored)
    report.answers_lost = [a for a in driver.confirmed if a not in stored]
    report.verify_ok, report.verify_checked = _verify()
    report.wall_seconds = time.monotonic() - started
    report.peak_rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def _verify() -> tuple[bool, int]:
    from coach_gui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", "--json"])
    result = json.loads(out.getvalue())
    return code == 0 and bool(result["ok"]), int(result["checked"])
