"""Findings and their texts: the bilingual message catalogue and how a finding becomes a report issue."""
