"""The project's FEL schema set (XSD), installed as the data package ``fel_rules.xsd``; no code lives here."""
