"""What is due and how it went: Today, Statistics, fitting the schedule, and undoing a
review. Today and Statistics take changes through `kit.changes.StaleUntilShown`."""
