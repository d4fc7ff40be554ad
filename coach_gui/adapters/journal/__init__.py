"""The journal (one SQLite file) and everything that reads or writes it, a module per thing
it holds: `database` (the file, its connections and migrations, `schema`), `practice`
(sessions, challenges, answers), `traces` (sealing and reading sessions back, with
`records` turning rows into domain records, and `trace_log`, the chained log of sealed
traces), `outbox` (what was sent to the judge), `memory` (FSRS memory per assertion),
`evals` (eval runs), `backups`, `restore` and `lock` (who has the file open)."""
