"""A table's closings: each time a referee closed its sheet (time called) and reopened it.

The table keeps its close in ``event_tables.closed_at`` (null while open) and
``close_reason`` (migration 0011). A table never reopened keeps them as before: while
closed, ``close_reason`` is the close's reason with who closed it, ``time called (by
referee)``; while open, null. A reopening (:func:`tilecam.tables.sheet.reopen_table`)
deletes nothing: the close it undoes and the reopening itself become lines of a record
kept in ``close_reason``, oldest first, each a time (ISO 8601, UTC) and the reason with
who gave it::

    closed 2026-12-07T18:00:00+00:00: time called (by referee)
    reopened 2026-12-07T18:04:10+00:00: closed by mistake, two hands left (by referee)

While the table is open again those lines are the whole ``close_reason`` (``closed_at``
null); closed again, its first line is the new close's reason with who closed it, the
record of earlier closings after it. A reason is kept on one line (:func:`one_line`), so
each line is one entry; only lines after the first are read as the record, so a reason
that happens to read like an entry is never taken for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from tilecam.db.models import GameTable

Action = Literal["closed", "reopened"]

#: A line of the record: ``closed`` or ``reopened``, an ISO 8601 time with its offset, the
#: reason with who gave it.
ENTRY = re.compile(r"(closed|reopened) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?"
                   r"(?:[+-]\d\d:\d\d|Z)): (.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class Closing:
    """One entry of the record: the table ``closed`` or ``reopened`` at ``at`` (ISO 8601,
    UTC), for ``reason`` (the referee's words with who gave them: ``… (by referee)``);
    ``current``: the close that stands now (its time is ``closed_at``)."""

    action: Action
    at: str | None
    reason: str
    current: bool = False

    def line(self) -> str:
        """The entry as the record keeps it (one with no time, a line no tilecam wrote,
        as it was)."""
        return self.reason if self.at is None else f"{self.action} {self.at}: {self.reason}"


def one_line(text: str) -> str:
    """``text`` on one line: its lines joined by a space, outer spaces off.

    >>> one_line("  time called\\r\\n  at 18:00\\u2028(hall B) ")
    'time called at 18:00 (hall B)'
    """
    return " ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def iso(value: datetime) -> str:
    """A stored time as the record writes it: ISO 8601 to the second, with its offset
    (SQLite hands a time back without its zone; every time is stored in UTC).

    >>> iso(datetime(2026, 12, 7, 18, 0, 5, 123456))
    '2026-12-07T18:00:05+00:00'
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="seconds")


def split(text: str | None, closed: bool) -> tuple[str | None, list[Closing]]:
    """``close_reason`` read as the current close's reason (None while open) and the
    record of earlier closings, oldest first. While closed, the reason is every line
    before the first entry after the first line (a reason stored on several lines before
    reasons were kept on one is kept whole); while open, every line is the record's (a
    line that is no entry, which no tilecam writes, is kept as an entry with no time).

    >>> split("time called (by referee)", True)
    ('time called (by referee)', [])
    >>> reason, record = split("extra hand (by referee)\\n"
    ...                        "closed 2026-12-07T18:00:00+00:00: time (by referee)\\n"
    ...                        "reopened 2026-12-07T18:04:00+00:00: mistake (by referee)", True)
    >>> reason, [(c.action, c.at[11:16], c.reason) for c in record]
    ('extra hand (by referee)', [('closed', '18:00', 'time (by referee)'), \
('reopened', '18:04', 'mistake (by referee)')])
    >>> split(None, False)
    (None, [])
    """
    if not text:
        return None, []
    lines = text.split("\n")
    first = 0
    if closed:
        first = next((i for i, line in enumerate(lines) if i and ENTRY.match(line)),
                     len(lines))
    record = []
    for line in lines[first:]:
        match = ENTRY.match(line)
        if match is None:
            record.append(Closing("closed", None, line))
        else:
            record.append(Closing("closed" if match[1] == "closed" else "reopened",
                                  match[2], match[3]))
    return ("\n".join(lines[:first]) if closed else None), record


def closings(table: GameTable) -> list[Closing]:
    """Every close and reopening of ``table``, oldest first; the close that stands now,
    if any, last (``current``)."""
    closed = table.closed_at is not None
    reason, record = split(table.close_reason, closed)
    if table.closed_at is not None:
        record.append(Closing("closed", iso(table.closed_at), reason or "", current=True))
    return record


def current_reason(table: GameTable) -> str | None:
    """Why the table is closed now, with who closed it (None while open)."""
    return split(table.close_reason, table.closed_at is not None)[0]


def closed_text(table: GameTable, reason: str, author: str) -> str:
    """``close_reason`` once ``table`` (open) is closed for ``reason`` by ``author``: the
    reason on one line with who gave it, then the record of earlier closings."""
    _, record = split(table.close_reason, False)
    return "\n".join([f"{one_line(reason)} (by {author})", *(c.line() for c in record)])


def reopened_text(table: GameTable, reason: str, author: str, now: datetime) -> str:
    """``close_reason`` once ``table`` (closed) is reopened at ``now`` for ``reason`` by
    ``author``: the record, the close it undoes and the reopening appended."""
    assert table.closed_at is not None
    before = [c for c in closings(table) if not c.current]
    undone = Closing("closed", iso(table.closed_at), one_line(current_reason(table) or ""))
    again = Closing("reopened", iso(now), f"{one_line(reason)} (by {author})")
    return "\n".join(c.line() for c in [*before, undone, again])
