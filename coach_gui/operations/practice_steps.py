"""The steps of a practice session, for the window and the terminal alike (DESIGN §2,
issue 35): which main challenge this is and how many are left, whether a follow-up comes
after an answer, whether the learner's self-rating comes first, when the session is over,
and which missed key points *Practise these* targets. No Qt and no I/O: the faces drive it
— the terminal in a loop, the window from its tasks' results — and ask it what comes next.

    steps = PracticeSteps(total=3, follow_ups=True)
    while steps.go_on() is Step.CHALLENGE:
        steps.main_challenge()
        asked = ask_challenge(...)            # the session's own operation
        steps.asked(asked.remaining, challenge)
        ...                                   # the answer is saved: steps.answer_saved()
        if steps.after_answer(answer) is Step.FOLLOW_UP:
            parent, answer = steps.follow_up()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from coach_gui.domain.challenges import Challenge
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import GapPlan, plan_gap_practice
from coach_gui.operations.practice import MissedPoint


class Step(Enum):
    ANSWERED = "answered"  # the answer is in; Next goes on
    FOLLOW_UP = "follow-up"  # ask the follow-up on the answer now
    RATE_FIRST = "rate first"  # the follow-up waits for the learner's self-rating
    CHALLENGE = "challenge"  # the next main challenge
    SUMMARY = "summary"  # none left: end the session and sum it up


@dataclass
class PracticeSteps:
    total: int  # main challenges in the session
    follow_ups: bool  # a follow-up may probe each main answer
    remaining: int = field(init=False)  # main challenges still to ask
    number: int = 0  # the main challenge on screen, from 1
    saved: int = 0  # answers saved
    skipped: int = 0  # challenges skipped
    is_follow_up: bool = False  # the challenge being asked or answered is a follow-up
    challenge: Challenge | None = None  # the challenge being answered, once written
    offline_reason: str | None = None  # the local model is off: no follow-ups
    missed: tuple[MissedPoint, ...] = ()  # once the session has ended
    _follow_up_on: tuple[Challenge, str] | None = None  # (challenge, answer) to probe

    def __post_init__(self) -> None:
        self.remaining = self.total

    # --- challenges -----------------------------------------------------------------------
    def main_challenge(self, *, retry: bool = False) -> None:
        """A main challenge is asked for (`retry`: the same slot again)."""
        if not retry:
            self.number = self.total - self.remaining + 1
        self.is_follow_up, self.challenge = False, None

    def asked(self, remaining: int, challenge: Challenge | None) -> None:
        """The session's answer to the ask: how many main challenges are left, and the
        challenge written (None: no follow-up this time)."""
        self.remaining = remaining
        if challenge is None:
            self.is_follow_up = False
        self.challenge = challenge

    def writing_failed(self) -> bool:
        """The challenge could not be written (or was cancelled); True when it was a
        follow-up, which the session simply goes on without."""
        was_follow_up, self.is_follow_up = self.is_follow_up, False
        return was_follow_up

    # --- answers --------------------------------------------------------------------------
    def answer_saved(self) -> None:
        self.saved += 1

    def answer_skipped(self) -> None:
        self.skipped += 1

    def after_answer(self, answer: str, *, rating_awaited: bool = False) -> Step:
        """What comes after an answer to the challenge on screen is in (judged, or kept
        unjudged): a follow-up on a main answer while follow-ups are on and the local model
        writes; first the learner's self-rating when one is offered (so nothing typed for
        the follow-up goes to the rating unseen); else Next."""
        parent = self.challenge
        if self.is_follow_up or parent is None or self.offline_reason or not self.follow_ups:
            self.is_follow_up = False
            return Step.ANSWERED
        self._follow_up_on = (parent, answer)
        return Step.RATE_FIRST if rating_awaited else Step.FOLLOW_UP

    def rating_done(self) -> bool:
        """The self-rating was given or skipped: True when a follow-up waited for it."""
        return self._follow_up_on is not None

    def drop_follow_up(self) -> None:
        """The follow-up that waited is not asked (the learner went on, or the session
        ended)."""
        self._follow_up_on = None

    def follow_up(self) -> tuple[Challenge, str]:
        """The follow-up is asked for now: the challenge and answer it probes."""
        waiting, self._follow_up_on = self._follow_up_on, None
        assert waiting is not None, "no answer to follow up"
        self.is_follow_up, self.challenge = True, None
        return waiting

    def go_on(self) -> Step:
        """Next: the next main challenge, or the summary (a follow-up waiting is passed
        over)."""
        self._follow_up_on = None
        return Step.CHALLENGE if self.remaining else Step.SUMMARY

    # --- after the session ----------------------------------------------------------------
    def missed_targets(self, note: Note) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """The missed key points still in `note`: their indexes now and their gap ids, by
        the assertion's identity (its text, whitespace and Unicode form aside), as Today
        and the gap board match them. Empty when the note holds none of them any more."""
        where = {assertion_digest(text): n for n, text in enumerate(note.core_assertions)}
        found = [(where[d], m.gap_id) for m in self.missed
                 if (d := assertion_digest(m.assertion)) in where]  # fmt: skip
        return tuple(i for i, _ in found), tuple(g for _, g in found)

    def practise_missed(self, note: Note, now: str) -> GapPlan | None:
        """*Practise these*: a plan whose challenges target what this session missed, the
        gap ids sealed with it; None when nothing missed is left in the note."""
        targets, gap_ids = self.missed_targets(note)
        return plan_gap_practice(note, targets, gap_ids, now) if targets else None
