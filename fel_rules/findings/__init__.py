"""Findings: what checks and stages yield, how a finding becomes a report issue, and the verdict."""
