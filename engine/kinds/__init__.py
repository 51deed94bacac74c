"""Rule kinds: what a table's `rule NAME uses KIND` names, one class per kind, each holding
all it does: reading its keywords (`from_node`), its fast test (`fits`), its findings
(`collect`, and `root_collect` for those worded when the schema is compiled), and its casts.
The compiler composes them; the table words what they find."""
