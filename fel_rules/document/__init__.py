"""The document stages: safe parse, schema check, and the typed facts and summary read from a FEL document."""
