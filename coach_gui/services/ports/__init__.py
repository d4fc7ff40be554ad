"""The ports services need from the outside world, one module per area: `notes`,
`practice` (journal, Tier 1, clock), `judge` (the judge, its verdicts and outbox), `sealing`,
`schedule` and `evals`. Each has one real adapter (built only by `bootstrap`) and an in-RAM
fake (tests/fakes), and the type checker holds both to its shape."""
