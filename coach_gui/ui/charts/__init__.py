"""The charts the views draw (forecast, heatmap, retention, progress, consistency), each
with a table of its numbers for the keyboard and screen readers. Qt only."""
