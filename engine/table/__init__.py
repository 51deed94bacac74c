"""The table language: a `.rules` file parsed, merged over the table it extends, checked
against the vocabulary, and turned into a frozen `Table`; and the table's sentences."""
