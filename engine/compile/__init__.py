"""Compiling a schema under a table: the schema read once, as its draft reads it, into a tree
of nodes that each hold their rule kinds' tests and walks (see `compiler`, `node`)."""
