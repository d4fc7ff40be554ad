"""What the Settings dialog shows, as a table (issue 35): each group's rows in order — the
setting's key in coach.config.json, the dialog's name for its field, its label with its
Alt letter, the kind of field, what it means, and what its value means and what to type
when it cannot be used. A `Slot` is where the dialog puts something that is not a field
of the file (the notes folder, the server finder, the judge's endpoint, the Gemini key,
the sync folder's button).

Alt letters: each letter is one control's. Seven fields have none (Local model server,
Connect timeout, Order of new notes, Flag a key point after, Longest shared run, Most
overlap allowed, Sync folder): the dialog has more controls than letters, and Tab reaches
them. The daily limit of new notes took Longest shared run's L."""

from __future__ import annotations

from dataclasses import dataclass

from coach_gui.config import SETTING_NAMES
from coach_gui.domain.schedule_control import NEW_ORDER_WORDS


@dataclass(frozen=True)
class Whole:
    """A whole number from `low` to `high`."""

    low: int
    high: int
    suffix: str = ""


@dataclass(frozen=True)
class Decimal:
    low: float
    high: float
    decimals: int = 2
    step: float = 0.01


@dataclass(frozen=True)
class Seconds:
    low: float
    high: float

    @property
    def means(self) -> str:
        return f"Seconds to wait before giving up ({self.low:g}–{self.high:g})"


@dataclass(frozen=True)
class Choice:
    options: tuple[tuple[str, str], ...]  # (value in the file, what the learner reads)


@dataclass(frozen=True)
class Text:
    placeholder: str = ""


@dataclass(frozen=True)
class Switch:
    """A check box, with what it means written under it (privacy choices are explained,
    not hidden)."""


Kind = Whole | Decimal | Seconds | Choice | Text | Switch


@dataclass(frozen=True)
class Reason:
    means: str  # what the value means, under the field
    problem: str  # in its place, in the warning colour, while the value cannot be used


@dataclass(frozen=True)
class Row:
    key: str  # dotted, as in coach.config.json
    attr: str  # the dialog's attribute holding the field
    label: str  # with its Alt letter (&)
    kind: Kind
    means: str = ""  # the field's tooltip and description (Seconds says its own)
    reason: Reason | None = None
    name: str | None = None  # what a screen reader calls it, when not its label


@dataclass(frozen=True)
class Slot:
    """Something of the dialog's own at this place in the group."""

    name: str


@dataclass(frozen=True)
class Group:
    title: str
    rows: tuple[Row | Slot, ...]


NOTES = Group("Notes (your knowledge base)", (Slot("notes folder"),))

TIER1 = Group("Local model (Tier 1, on this computer)", (
    # Its wire format (issue 31): Ollama's own API, or OpenAI's, which LM Studio,
    # llama.cpp's llama-server, Jan, vLLM and GPT4All serve.
    Row("tier1.server", "tier1_server", "Local model server", Choice((
        ("ollama", "Ollama"),
        ("openai", "OpenAI-compatible (LM Studio, llama.cpp, Jan, vLLM, GPT4All)"))),
        "Which kind of server writes the challenges (and grades, with the judge on this "
        "computer)"),
    Row("tier1.ollamaUrl", "ollama_url", "L&ocal server address", Text(),
        "Where the model server listens; it must be on this computer"),
    Row("tier1.model", "tier1_model", "&Model", Text(),
        "The model that writes challenges, e.g. llama3.2:3b"),
    Slot("server finder"),  # find one already running, and fill the three in
    Row("tier1.connectTimeoutSeconds", "connect_timeout", "Connect timeout", Seconds(0.5, 60)),
    Row("tier1.readTimeoutSeconds", "read_timeout", "&Read timeout", Seconds(1, 3600)),
))  # fmt: skip

PRACTICE = Group("Practice", (
    Row("tier1.challengesPerSession", "challenges_per_session", "C&hallenges per session",
        Whole(1, 20), "How many challenges each practice session asks",
        Reason("From 1 to 20, not counting follow-ups; the next session you start uses it.",
               "Type a whole number from 1 to 20.")),
    Row("tier1.followUps", "follow_ups", "Ask a &follow-up on each answer", Switch(),
        "On: after each answer the local model asks one more question about it. Off: "
        "straight on to the next challenge"),
    Row("schedule.desiredRetention", "desired_retention", "Desired r&etention",
        Decimal(0.70, 0.99),
        "How likely you should still recall a key point when it comes due again",
        Reason("Between 0.70 and 0.99: the chance you still recall a key point when it comes "
               "due. Higher means more reviews.",
               "Type a number between 0.70 and 0.99 (0.90 is the default). Higher means more "
               "reviews.")),
    Row("schedule.newPerDay", "new_per_day", "Daily &limit of new notes",
        Whole(0, 500, " a day"),
        "How many notes you have not practised yet Today brings in each day",
        Reason("From 0 to 500 notes you have not practised yet, brought into Today each day; "
               "0 brings in none. Today follows it as soon as you save.",
               "Type a whole number from 0 to 500 (5 is the default).")),
    Row("schedule.newOrder", "new_order", "Order of new notes",
        Choice(tuple(NEW_ORDER_WORDS.items())),
        "Which of the notes you have not practised yet Today brings in first",
        Reason("Which notes you have not practised yet come first; the daily limit above says "
               "how many.",
               "Choose one of the orders in the list.")),
    Row("schedule.leechLapses", "leech_lapses", "Flag a key point after",
        Whole(1, 100, " misses"),
        "A key point you have missed this many times is flagged in Today",
        Reason("From 1 to 100: a key point missed this many times is flagged in Today, so you "
               "can reword it (missing it again and again often means it is unclear).",
               "Type a whole number from 1 to 100 (4 is the default)."),
        name=SETTING_NAMES["schedule.leechLapses"]),
))  # fmt: skip

JUDGE = Group("Judge (Tier 2)", (
    Row("judge.provider", "judge_provider", "&Who grades",
        Choice((("gemini", "Google Gemini"), ("local", "This computer (Ollama)"))),
        "Google Gemini: the judge runs at Google and gets what the switches below allow. "
        "This computer: a model in Ollama grades; slower, but nothing leaves"),
    Row("judge.localModel", "local_judge_model", "Local j&udge model", Text(),
        "The Ollama model that grades when the judge runs on this computer, e.g. qwen2.5:7b"),
    Row("judge.localTimeoutSeconds", "local_judge_timeout", "Local judge t&ime limit",
        Seconds(1, 3600)),
    Row("judge.enabled", "judge_enabled", "&Judge answers", Switch(),
        "Off: nothing is judged; answers are kept and can be judged later"),
    Row("judge.includeAssertions", "include_assertions", "Send core &assertions to the judge",
        Switch(),
        "On: the judge gets each challenge, your answer and the note's core assertions. "
        "Off: only the challenge and your answer. Never the note's text, title or tags"),
    Row("judge.strictness", "judge_strictness", "How strictly the judge grades",
        Choice((("lenient", "Lenient: the main idea in any words counts"),
                ("standard", "Standard: the idea stated clearly counts"),
                ("strict", "Strict: only precise and complete counts"))),
        "What an answer must show for a key point to count as explained; said in the "
        "judge's instructions and kept with each session. Disagree with a verdict? Correct "
        "the key point: your word counts"),
    Row("judge.reviewPayloads", "review_payloads", "Review each payload &before it is sent",
        Switch(), "Shows exactly what would go to the judge and waits for Send or Don't send"),
    Row("judge.model", "judge_model", "&Gemini model", Text(),
        "The Gemini model that grades answers"),
    Row("judge.timeoutSeconds", "judge_timeout", "Gemini &timeout", Seconds(1, 600)),
    Slot("judge endpoint"),  # where requests go: set in the file only (issue 21)
    Slot("gemini key"),  # not a setting of the file: it lives in the OS keyring
))  # fmt: skip

NO_QUOTE = Group("No-quote check (challenges must not quote your note)", (
    Row("noQuote.maxSharedWords", "max_shared_words", "Longest shared run",
        Whole(2, 50, " words"),
        "A challenge sharing this many words in a row with the note is rejected"),
    Row("noQuote.maxContainment", "max_containment", "Most overlap allowed",
        Decimal(0.05, 1.0, step=0.05),
        "Share of a challenge's word groups that may also appear in the note (0–1)"),
    Row("noQuote.shingleWords", "shingle_words", "Word group si&ze", Whole(1, 10, " words"),
        "How many words in a row make one word group for the overlap measure"),
))  # fmt: skip

SYNC = Group("Sync (your other computers)", (
    Row("sync.folder", "sync_folder", "Sync folder", Text("Off: nothing is synced"),
        "A folder your own sync tool carries to your other computers; empty: sync is off"),
    Slot("sync folder"),  # choose it, what sync puts there, this computer's fingerprint
))  # fmt: skip

GROUPS = (NOTES, TIER1, PRACTICE, JUDGE, NO_QUOTE, SYNC)
