"""Where eval runs are stored and read back, and the keys that sign them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from coach_gui.domain.eval_traces import EvalChildTrace, StoredEvalChild, StoredEvalRun
from coach_gui.domain.evals import EvalReport
from coach_gui.domain.session_records import StoredTrace


class EvalStore(Protocol):
    def store_run(
        self,
        report: EvalReport,
        signature: str,
        key_id: str,
        traces: Sequence[EvalChildTrace],
    ) -> None:
        """Store the report, its signature and its child traces in one transaction."""
        ...

    def outbox_digest(self, outbox_id: str) -> str | None:
        """The row digest of an outbox row as it stands (None if there is none): a child
        seals the request it made, reply, status and tokens included (issue 21)."""
        ...


class SigningKeys(Protocol):
    def signing_key(self) -> tuple[str, bytes]:
        """(key id, key): the eval signing key, generated and stored on first use."""
        ...

    def key_for(self, key_id: str) -> bytes | None:
        """The key with this id, or None when the keyring holds no such key."""
        ...


class EvalRunReader(Protocol):
    def eval_run(self, eval_run_id: str) -> StoredEvalRun | None: ...

    def eval_run_ids(self) -> list[str]:
        """Every recorded eval run, oldest first."""
        ...

    def eval_children(self, eval_run_id: str) -> list[StoredEvalChild]: ...

    def trace_row(self, trace_id: str) -> StoredTrace | None: ...

    def outbox_payload(self, outbox_id: str) -> str | None:
        """The payload JSON the outbox recorded for that request (None if there is none)."""
        ...

    def outbox_digest(self, outbox_id: str) -> str | None:
        """The row digest of that outbox row (None if there is none)."""
        ...


class SigningKeyLookup(Protocol):
    def key_for(self, key_id: str) -> bytes | None: ...

    def has_key(self) -> bool:
        """The keyring holds a signing key at all."""
        ...

    def has_keyring(self) -> bool:
        """This computer has a keyring at all (it may be locked)."""
        ...
