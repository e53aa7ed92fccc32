"""Tools for rule authors: rule test cases, listing/linting/documenting rules, and SAT catalogue coverage."""
