"""The enrollment domain's models, in two modules: `lines.py` (the line's state, tables, workflow messages
and queries) and `actions.py` (the enrollment actions' requests and answers)."""
