"""A model's turn: its calls checked together before any runs (`gate`), the answers of a
refused turn, run steps for the record (`steps`), and a reference loop (`loop`)."""
