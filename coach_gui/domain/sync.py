"""Two devices, one history (issue 20, docs/adr/0027-two-devices-one-history.md): the
segment files each device writes into its own folder of the learner's sync folder. Pure.

A segment is JSON Lines, every line canonical JSON (sorted keys, no spaces, UTF-8; strings
exactly as stored, so a row travels byte for byte):
  1. a header: format, version, the writing device's id and name, its sequence number
     and when it was written (the writer's clock, for the status only);
  2. one line per record: its kind, its id and its row, column by column as stored;
  3. a trailer: how many records, the SHA-256 of every byte before the trailer, and (from
     format 2, issue 34, ADR 0033) the writing computer's Ed25519 signature of those bytes.
A file whose last line is not a trailer that matches is not complete yet (still being
copied, or cut off) and is read again next time. Its name carries its sequence number and
the start of its digest, so two segments never share a name and a name names one content.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, ValidationError

from coach_gui.domain.changes import RECORDS_ARRIVED, Changes
from coach_gui.domain.digests import content_id
from coach_gui.domain.errors import CoachError
from coach_gui.domain.records import Record
from coach_gui.domain.sync_pairing import Waiting, signature_valid

FORMAT: Literal["coach-sync"] = "coach-sync"
VERSION = 2  # 2: signed (issue 34); a segment of format 1 is refused, never imported
MAX_SEQUENCE = 99_999_999  # the largest number a segment's name can carry
# Bytes: a full segment (5,000 records) is about 10 MB; larger is refused unread. Three
# times that leaves room for long answers, while a planted file costs at most this much
# memory for each of the few read ahead (ADR 0033, amendments of the second review).
SEGMENT_LIMIT = 32 * 1024 * 1024
# Python's `$` also matches before a final newline: these are only ever used with
# `fullmatch` (a folder or file name ending in "\n" is not Coach's; issue 34 review).
DEVICE_ID = re.compile(r"^[0-9a-f]{32}$")
SEGMENT_NAME = re.compile(r"^(?P<sequence>[0-9]{8})-(?P<digest>[0-9a-f]{16})\.jsonl$")
Row = dict[str, str | int | None]

# The kinds that make up a practice session's records, and their tables.
SESSION_TABLES: dict[str, str] = {
    "session": "sessions",
    "challenge": "challenges",
    "challenge_rejection": "challenge_rejections",
    "attempt": "attempts",
    "verdict": "verdicts",
    "judge_refusal": "judge_refusals",
    "binding": "attempt_bindings",
    "outbox": "outbox",
    "trace": "sealed_traces",
}

# table -> column -> the names of the Python types stored in it unchanged ("int", "str",
# "NoneType"), from the journal's declared column types (the journal's `stored_types`).
StoredTypes = Mapping[str, Mapping[str, frozenset[str]]]


# What the sync folder holds, said the same way in Settings, Help and the README (issue 34).
SYNC_FOLDER_HOLDS = (
    "The sync folder holds, for anyone who can read it: this computer's name, its id and "
    "its public key; for each session, the note's title and id, the challenges, your "
    "answers, the judge's verdicts, feedback and gaps, and the texts of the note's key "
    "points (core assertions) your answers were judged against, even for verdicts made "
    "with \u201cSend core assertions\u201d off; what was sent to the judge and its "
    "replies; answers judged later and your own ratings; your corrections of the judge's "
    "word on a key point, with your note; the review histories imported from Anki, with "
    "the texts of their key points; and your schedule changes (holds, undos, "
    "parameter sets). Never a key: this computer's signing key stays in "
    "its keyring."
)


class SyncError(CoachError):
    """The sync folder cannot be used; the message says what to do."""


class SegmentHeader(Record):
    format: Literal["coach-sync"]
    version: int = Field(ge=1)
    device_id: str = Field(pattern=DEVICE_ID.pattern)
    device_name: str
    sequence: int = Field(ge=1, le=MAX_SEQUENCE)
    created_at: str


def _line(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8: the canonical form, but with every string exactly as
    stored (never normalised), so a row comes out of a segment byte for byte as it went in."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class SyncRecord:
    """One record as it travels: its kind (`adapters.journal.sync_kinds`), id and row."""

    kind: str
    id: str
    row: Row

    def line(self) -> str:
        return _line({"kind": self.kind, "id": self.id, "row": self.row})


@dataclass(frozen=True)
class Segment:
    header: SegmentHeader
    records: tuple[SyncRecord, ...]
    digest: str  # the trailer's SHA-256

    @property
    def name(self) -> str:
        return segment_name(self.header.sequence, self.digest)


@dataclass(frozen=True)
class ExportBatch:
    """Records ready to travel, one group per practice session, and how far the journal
    was looked through for them (stored once they are all in segments)."""

    groups: list[list[SyncRecord]]
    marks: dict[str, int]


@dataclass(frozen=True)
class Unreadable:
    """Why a file in a device's folder was not read (it is left where it is)."""

    reason: str
    complete: bool  # False: not complete yet (being copied); it is read again next time
    refused: bool = False  # True: not signed as its computer's segments must be (issue 34)
    detail: str = ""  # what went wrong, for the log only (a parser's words)


def segment_name(sequence: int, digest: str) -> str:
    return f"{sequence:08d}-{digest[:16]}.jsonl"


def segment_bytes(
    header: SegmentHeader, records: Sequence[SyncRecord], sign: Callable[[bytes], bytes]
) -> tuple[bytes, Segment]:
    """The file's bytes and the segment they hold; `sign` signs every byte before the
    trailer with this computer's key (the signature travels in the trailer)."""
    lines = [_line(header.model_dump(mode="json"))]
    lines += [record.line() for record in records]
    body = ("\n".join(lines) + "\n").encode("utf-8")
    sha = hashlib.sha256(body).hexdigest()
    signature = base64.b64encode(sign(body)).decode("ascii")
    trailer = _line({"trailer": {"count": len(records), "sha256": sha, "signature": signature}})
    return body + trailer.encode("utf-8") + b"\n", Segment(header, tuple(records), sha)


_INCOMPLETE = "not complete yet (still being copied, or cut off); it is read again next sync"


@dataclass(frozen=True)
class _Trailer:
    body: bytes
    count: int
    sha: str
    signature: bytes | None


def _trailer(data: bytes) -> _Trailer | Unreadable:
    if not data.endswith(b"\n"):
        return Unreadable(_INCOMPLETE, complete=False)
    cut = data.rfind(b"\n", 0, len(data) - 1)
    body, last = data[: cut + 1], data[cut + 1 : -1]
    try:
        trailer = json.loads(last)["trailer"]
        count, sha = trailer["count"], trailer["sha256"]
        signed = trailer.get("signature")
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):  # (too deep)
        return Unreadable(_INCOMPLETE, complete=False)
    if not isinstance(count, int) or not isinstance(sha, str) or cut < 0:
        return Unreadable(_INCOMPLETE, complete=False)
    if hashlib.sha256(body).hexdigest() != sha:
        return Unreadable("damaged: its content does not match its digest", complete=True)
    signature = None
    if isinstance(signed, str):
        try:
            signature = base64.b64decode(signed, validate=True)
        except (binascii.Error, ValueError):
            signature = b""
    return _Trailer(body, count, sha, signature)


_RECORD_KEYS = {"kind", "id", "row"}
_COLUMN_TYPES = frozenset({str, int, type(None)})  # not bool, float, list or dict


def _records(lines: list[str]) -> tuple[SyncRecord, ...]:
    """The record lines, read in one go as the items of one JSON array (one call of the
    parser: faster, and the rows share their column names); there must be as many
    records as lines (ADR 0027 says what that does not prove)."""
    raw = json.loads("[" + ",".join(lines) + "]") if lines else []
    if len(raw) != len(lines):
        raise ValueError("its lines are not one record each")
    return tuple(_record(value, number) for number, value in enumerate(raw, start=2))


def _record(raw: Any, number: int) -> SyncRecord:
    if not isinstance(raw, dict) or raw.keys() != _RECORD_KEYS:
        raise ValueError(f"line {number} is not a record")
    kind, record_id, row = raw["kind"], raw["id"], raw["row"]
    if not isinstance(kind, str) or not isinstance(record_id, str) or not isinstance(row, dict):
        raise ValueError(f"line {number} is not a record")
    if not _COLUMN_TYPES.issuperset(map(type, row.values())):
        raise ValueError(f"line {number} holds a value no journal column holds")
    return SyncRecord(kind, record_id, row)


NOT_A_SEGMENT = (
    "its content is not what Coach writes in a sync segment, though it is signed with its "
    "computer's key; left as it is (the log file says what is wrong with it)"
)
NOT_SIGNED = "it is not signed with the key its computer was paired with here; not imported"


def parse_segment(
    data: bytes, *, device_id: str, file_name: str, public_key: bytes
) -> Segment | Unreadable:
    """The segment `data` holds, found as `file_name` in the folder of `device_id`, whose
    computer was paired here with `public_key` (this computer's own for its own folder).
    The signature is checked before anything else of the content is read."""
    found = _trailer(data)
    if isinstance(found, Unreadable):
        return found
    body, count, sha = found.body, found.count, found.sha
    match = SEGMENT_NAME.fullmatch(file_name)
    if match is None or match["digest"] != sha[:16]:
        return Unreadable("its name does not match its content", complete=True)
    if found.signature is None:
        return Unreadable(
            "it is not signed: it was written by an older Coach, or not by Coach; update "
            "Coach on that computer (nothing unsigned is imported)",
            complete=True,
            refused=True,
        )
    if not signature_valid(public_key, found.signature, body):
        return Unreadable(NOT_SIGNED, complete=True, refused=True)
    try:
        lines = body.decode("utf-8").split("\n")[:-1]
        header = SegmentHeader.model_validate_json(lines[0])
        if _line(header.model_dump(mode="json")) != lines[0]:
            raise ValueError("the header is not in canonical form")
        records = _records(lines[1:])
    except (ValueError, IndexError, ValidationError, RecursionError) as error:
        problem = shown(str(error).splitlines()[0][:160])  # for the log, not the learner
        return Unreadable(NOT_A_SEGMENT, complete=True, detail=f"{type(error).__name__}: {problem}")
    if header.version > VERSION:
        return Unreadable(
            f"written by a newer Coach (format {header.version}); update Coach here",
            complete=True,
        )
    if header.device_id != device_id:
        return Unreadable("it is in another device's folder", complete=True)
    if int(match["sequence"]) != header.sequence or len(records) != count:
        return Unreadable("its name or trailer does not match its content", complete=True)
    return Segment(header, records, sha)


# Characters that steer a terminal or reorder text (escape codes, bidirectional overrides):
# shown as escapes, so a name in another computer's file cannot rewrite what is printed.
_STEERING = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def shown(text: str) -> str:
    """Text from a file or file name (another computer's, or the sync tool's) as it can be
    shown: control characters, text-direction overrides and what is not Unicode (a lone
    surrogate, a byte that is no character) escaped, e.g. ``\\x1b``."""
    return _STEERING.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def self_rating_id(row: Mapping[str, Any]) -> str:
    """A self-rating's content id: a new rating of the same answer and assertion is a new
    record (its own id), and the merge below picks one of them."""
    fields = {k: row[k] for k in sorted(row) if k != "id"}
    return content_id("self_rating", fields)


def newer_rating(incoming: Mapping[str, Any], stored: Mapping[str, Any]) -> bool:
    """The merge of two ratings of one answer's assertion: the later `created_at` wins,
    a tie goes to the larger content id, so every device keeps the same one."""
    return (str(incoming["created_at"]), self_rating_id(incoming)) > (
        str(stored["created_at"]),
        self_rating_id(stored),
    )


@dataclass(frozen=True)
class Ignored:
    device: str  # "name (id…)" of the folder's device
    file: str
    reason: str


@dataclass(frozen=True)
class SegmentOutcome:
    """What importing one segment did."""

    status: Literal["imported", "duplicate", "waiting", "rejected"]
    added: int = 0
    duplicates: int = 0
    conflicts: tuple[tuple[str, str], ...] = ()  # (kind, id) held differently here
    reason: str | None = None


@dataclass(frozen=True)
class DeviceSeen:
    device_id: str
    name: str
    segments: int
    records: int
    last_segment_at: str | None
    this_device: bool = False


@dataclass
class SyncReport:
    device_id: str
    device_name: str
    folder: str
    segments_written: list[str] = field(default_factory=list)
    segments_imported: list[str] = field(default_factory=list)
    records_out: int = 0
    records_in: int = 0
    duplicates: int = 0
    conflicts: list[dict[str, str]] = field(default_factory=list)
    rejected: list[Ignored] = field(default_factory=list)
    ignored: list[Ignored] = field(default_factory=list)
    # Not imported, never to be: not signed by the key its computer was paired with,
    # claiming to be this computer, or not a file Coach reads (issue 34). Listed, not fatal.
    refused: list[Ignored] = field(default_factory=list)
    waiting: list[Waiting] = field(default_factory=list)  # computers to pair
    devices: list[DeviceSeen] = field(default_factory=list)
    fingerprint: str = ""  # this computer's, which the other computers show when pairing
    paired: list[dict[str, str]] = field(default_factory=list)

    @property
    def changes(self) -> Changes:
        """Records that came in from another computer; a sync that brought none changed
        nothing the window shows."""
        return RECORDS_ARRIVED if self.records_in else Changes()

    @property
    def ok(self) -> bool:
        return not self.rejected and not self.conflicts

    def to_json(self) -> dict[str, Any]:
        def ignored(items: list[Ignored]) -> list[dict[str, str]]:
            return [{"device": i.device, "file": i.file, "reason": i.reason} for i in items]

        return {
            "ok": self.ok,
            "device_id": self.device_id,
            "device_name": shown(self.device_name),
            "fingerprint": self.fingerprint,
            "folder": self.folder,
            "segments_written": self.segments_written,
            "segments_imported": self.segments_imported,
            "records_out": self.records_out,
            "records_in": self.records_in,
            "duplicates": self.duplicates,
            "conflicts": self.conflicts,
            "rejected": ignored(self.rejected),
            "ignored": ignored(self.ignored),
            "refused": ignored(self.refused),
            "waiting": [w.to_json() for w in self.waiting],
            "paired": self.paired,
            "devices": [
                {
                    "device_id": d.device_id,
                    "name": shown(d.name),
                    "this_device": d.this_device,
                    "segments": d.segments,
                    "records": d.records,
                    "last_segment_at": d.last_segment_at,
                }
                for d in self.devices
            ],
        }


def device_label(name: str, device_id: str) -> str:
    return f"{shown(name)} ({device_id[:8]})"
