"""The built-in rule set (YAML), installed as the data package ``fel_rules.rules``; no code lives here."""
