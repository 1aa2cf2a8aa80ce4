"""Training and evaluation entry points."""
