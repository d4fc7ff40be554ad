"""The outside world, one module per thing. Vendor exceptions never leave this package."""
