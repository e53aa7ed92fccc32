"""The shared core every stage builds on: errors, configuration, the report vocabulary, money, namespaces, safe
file access, and the version."""
