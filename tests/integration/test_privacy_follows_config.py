"""Issue 35: the live privacy switches are a view of the config in effect, not a copy kept
in step by a hook: whatever config the context holds is what the next request reads."""

from __future__ import annotations

import threading

import pytest

from coach_gui.bootstrap import build_context
from coach_gui.domain.privacy import PrivacySwitches


def test_the_switches_are_read_from_the_config_in_effect() -> None:
    context = build_context()
    assert context.privacy.judge_enabled() is context.config.judge.enabled
    context.config = context.config.with_changes(
        {"judge.enabled": True, "judge.includeAssertions": False, "judge.provider": "local"}
    )
    assert context.privacy.now() == PrivacySwitches(True, False, "local")
    assert not context.privacy.include_assertions()
    context.config = context.config.with_changes({"judge.includeAssertions": True})
    assert context.privacy.include_assertions()
    with pytest.raises(TypeError):  # no second copy to set behind the config's back
        context.privacy.set(PrivacySwitches(False, False))


def test_a_worker_reads_whole_switches_while_the_config_changes() -> None:
    """Requests read the switches on workers while the window sets new configs: each read
    is one config's, never half of one and half of another."""
    context = build_context()
    on = context.config.with_changes({"judge.enabled": True, "judge.includeAssertions": True})
    off = context.config.with_changes({"judge.enabled": False, "judge.includeAssertions": False})
    seen: set[tuple[bool, bool]] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            now = context.privacy.now()
            seen.add((now.judge_enabled, now.include_assertions))

    worker = threading.Thread(target=read)
    worker.start()
    for _ in range(20_000):
        context.config = on
        context.config = off
    stop.set()
    worker.join()
    assert seen and seen <= {(True, True), (False, False)}
