"""JSON values: their kinds and loose forms, numbers held in text, decoding of any size,
quoting for a message, and the closest of a set of names."""
