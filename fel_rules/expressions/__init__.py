"""The expression language of YAML rules and the data catalogues (frases, taxes) its functions look up."""
