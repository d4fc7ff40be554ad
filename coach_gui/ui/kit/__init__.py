"""What every room uses and nothing of a feature: background tasks on lanes, failures in
the learner's words, keys and mnemonics, the theme, screen fit, the table model, and the
stale cycle a view takes changes records with (`changes`)."""
