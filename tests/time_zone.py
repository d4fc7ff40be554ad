"""The learner's time zone for a test: set for the process (`time.tzset`), and put back after
(shared by the fixtures that need one)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def learner_in(zone: str) -> Iterator[None]:
    old = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old
        time.tzset()
