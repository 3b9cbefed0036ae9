"""`earmark decide`: the promotion rule of seed 000, its evidence, gates and record."""
