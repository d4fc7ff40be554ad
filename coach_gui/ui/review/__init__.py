"""Looking back: the Sessions view and a session's detail, the gap board, what was sent to
the judge, judge consistency, and judging pending answers. Each view reads again for the
changes it shows (`take_changes`)."""
